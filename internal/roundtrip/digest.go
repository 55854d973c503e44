package roundtrip

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"slices"
	"sync"
)

// ArgsDigest hashes the arguments in a canonical form (decoded and
// re-encoded: sorted keys, no insignificant space, numbers as written), so a
// client that re-serialises the same arguments on its retry still matches.
// No arguments at all count as null.
func ArgsDigest(args []byte) []byte {
	d := argsDigest(args)
	return d[:]
}

// argsDigest is ArgsDigest without the allocation of its result.
func argsDigest(args []byte) [sha256.Size]byte {
	bp := canonBufs.Get().(*[]byte)
	defer canonBufs.Put(bp)
	canon, ok := canonicalJSON((*bp)[:0], args)
	if cap(canon) <= maxPooledCanon {
		*bp = canon[:0]
	}
	if ok {
		return sha256.Sum256(canon)
	}
	return sha256.Sum256(canonicalSlow(args))
}

// canonBufs holds the buffers canonical forms are written to; one larger
// than maxPooledCanon is left to the collector.
var canonBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxPooledCanon = 64 << 10

// canonicalSlow is the reference canonical form: the arguments decoded into
// any (numbers kept as written) and marshalled again; args as they are when
// they do not decode.
func canonicalSlow(args []byte) []byte {
	if len(bytes.TrimSpace(args)) == 0 {
		return []byte("null")
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&v) == nil {
		if canon, err := json.Marshal(v); err == nil {
			return canon
		}
	}
	return args
}

// canonicalJSON appends to dst what canonicalSlow makes of args, without
// decoding them into maps, for args that are one JSON value with optional
// white space around it. ok is false for anything else, and for values it
// leaves to canonicalSlow: duplicate keys, keys that are escaped or not
// valid UTF-8, nesting deeper than maxScanDepth.
func canonicalJSON(dst, args []byte) ([]byte, bool) {
	i := SkipSpace(args, 0)
	if i == len(args) {
		return dst, false // empty or non-JSON space: canonicalSlow decides
	}
	dst, end, ok := canonicalValue(dst, args, i, 0)
	if !ok || SkipSpace(args, end) != len(args) {
		return dst, false
	}
	return dst, true
}

// member is one object member written to dst: its key as sent (plain) and
// where `"key":value` sits in dst.
type member struct {
	key        []byte
	start, end int
}

func canonicalValue(dst, b []byte, i, depth int) ([]byte, int, bool) {
	switch b[i] {
	case '{':
		return canonicalObject(dst, b, i, depth)
	case '[':
		if depth >= maxScanDepth {
			return dst, i, false
		}
		dst = append(dst, '[')
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return append(dst, ']'), i + 1, true
		}
		for {
			var ok bool
			if i >= len(b) {
				return dst, i, false
			}
			if dst, i, ok = canonicalValue(dst, b, i, depth+1); !ok {
				return dst, i, false
			}
			if i = SkipSpace(b, i); i >= len(b) {
				return dst, i, false
			}
			switch b[i] {
			case ']':
				return append(dst, ']'), i + 1, true
			case ',':
				dst = append(dst, ',')
				i = SkipSpace(b, i+1)
			default:
				return dst, i, false
			}
		}
	case '"':
		end, plain, ok := ScanString(b, i)
		if !ok {
			return dst, i, false
		}
		if plain {
			return AppendString(dst, b[i+1:end-1]), end, true
		}
		s, err := DecodeString(b[i:end], false)
		if err != nil {
			return dst, i, false
		}
		return AppendString(dst, s), end, true
	default: // literals and numbers are written as they were sent
		end, ok := scanValue(b, i, depth)
		if !ok {
			return dst, i, false
		}
		return append(dst, b[i:end]...), end, true
	}
}

// canonicalObject writes an object with its members sorted by key, as
// json.Marshal writes a map.
func canonicalObject(dst, b []byte, i, depth int) ([]byte, int, bool) {
	if depth >= maxScanDepth {
		return dst, i, false
	}
	open := len(dst)
	dst = append(dst, '{')
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return append(dst, '}'), i + 1, true
	}
	var small [8]member
	members := small[:0]
	sorted := true
	for {
		end, plain, ok := ScanString(b, i)
		if !ok || !plain {
			return dst, i, false
		}
		key := b[i+1 : end-1]
		if n := len(members); n > 0 {
			switch c := bytes.Compare(members[n-1].key, key); {
			case c == 0:
				return dst, i, false // duplicate: the map keeps the last
			case c > 0:
				sorted = false
			}
			dst = append(dst, ',')
		}
		start := len(dst)
		dst = AppendString(dst, key)
		dst = append(dst, ':')
		if i = SkipSpace(b, end); i >= len(b) || b[i] != ':' {
			return dst, i, false
		}
		if i = SkipSpace(b, i+1); i >= len(b) {
			return dst, i, false
		}
		if dst, i, ok = canonicalValue(dst, b, i, depth+1); !ok {
			return dst, i, false
		}
		members = append(members, member{key: key, start: start, end: len(dst)})
		if i = SkipSpace(b, i); i >= len(b) {
			return dst, i, false
		}
		if b[i] == '}' {
			i++
			break
		}
		if b[i] != ',' {
			return dst, i, false
		}
		i = SkipSpace(b, i+1)
	}
	if !sorted {
		slices.SortFunc(members, func(x, y member) int { return bytes.Compare(x.key, y.key) })
		for j := 1; j < len(members); j++ {
			if bytes.Equal(members[j-1].key, members[j].key) {
				return dst, i, false
			}
		}
		written := slices.Clone(dst[open+1:])
		dst = dst[:open+1]
		for j, m := range members {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, written[m.start-open-1:m.end-open-1]...)
		}
	}
	return append(dst, '}'), i, true
}
