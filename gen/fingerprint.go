package gen

import "go/types"

// structFingerprint hashes the field names and tags of a struct type, descending
// into embedded structs, exactly as formcore.Fingerprint does with reflect;
// generated code compares the two at init to catch tags edited after
// generation.
func structFingerprint(st *types.Struct) uint64 {
	h := uint64(fnvOffset)
	fingerprint(&h, st, 0)
	return h
}

const (
	fnvOffset        = 14695981039346656037
	fnvPrime         = 1099511628211
	fingerprintDepth = 8 // formcore uses the same bound
)

func fnvString(h *uint64, s string) {
	for i := 0; i < len(s); i++ {
		*h ^= uint64(s[i])
		*h *= fnvPrime
	}
	*h ^= 0xff
	*h *= fnvPrime
}

func fingerprint(h *uint64, st *types.Struct, depth int) {
	fnvString(h, "{")
	for i := range st.NumFields() {
		v := st.Field(i)
		fnvString(h, v.Name())
		fnvString(h, st.Tag(i))
		if v.Embedded() && depth < fingerprintDepth {
			if est, ok := types.Unalias(v.Type()).Underlying().(*types.Struct); ok {
				if _, isPtr := types.Unalias(v.Type()).(*types.Pointer); !isPtr {
					fingerprint(h, est, depth+1)
				}
			}
		}
	}
	fnvString(h, "}")
}
