package subset

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A secret is one way a property can ask for something form mode must
// not: a word or a run of words, written as the words run together
// ("apikey" for "api_key", "apiKey", "API key" and "apikey").
type secret struct {
	text string
	what string
	// numeric secrets (a PIN, a card number, a one-time code) are often
	// typed as numbers; the others never are, so an integer or number
	// property is checked for these only.
	numeric bool
	// prose secrets are phrases no description uses innocently
	// ("password", "API key"); "token", "secret" and "pin" are not.
	prose bool
}

var secrets = []secret{
	{"password", "a password", false, true},
	{"passwd", "a password", false, true},
	{"pwd", "a password", false, false},
	{"pass", "a password", false, false}, // DB_PASS, smtp_pass
	{"passphrase", "a password", false, true},
	{"passcode", "a password", true, true},
	{"secret", "a secret", false, false},
	{"credential", "a credential", false, false},
	{"creds", "a credential", false, false},
	{"token", "a token", false, false},
	{"pat", "a token", false, false}, // a personal access token: github_pat
	{"bearer", "a token", false, false},
	{"jwt", "a token", false, false},
	{"authorization", "a token", false, false}, // the header's value
	{"cookie", "a session cookie", false, false},
	{"apikey", "an API key", false, true},
	{"accesskey", "an access key", false, true},
	{"secretkey", "a secret key", false, true},
	{"privatekey", "a private key", false, true},
	{"privkey", "a private key", false, true},
	{"signingkey", "a private key", false, true},
	{"encryptionkey", "a private key", false, true},
	{"masterkey", "a private key", false, true},
	{"accesstoken", "a token", false, true},
	{"authtoken", "a token", false, true},
	{"refreshtoken", "a token", false, true},
	{"bearertoken", "a token", false, true},
	{"sessiontoken", "a token", false, true},
	{"apitoken", "a token", false, true},
	{"clientsecret", "a secret", false, true},
	{"apisecret", "a secret", false, true},
	{"cardnumber", "a payment card number", true, true},
	{"creditcard", "a payment card number", true, true},
	{"debitcard", "a payment card number", true, true},
	{"cvv", "a card security code", true, true},
	{"cvc", "a card security code", true, true},
	{"ccv", "a card security code", true, true},
	{"securitycode", "a card security code", true, true},
	{"iban", "a bank account number (IBAN)", false, true},
	{"bankaccount", "a bank account number", true, true},
	{"routingnumber", "a bank account number", true, true},
	{"sortcode", "a bank account number", true, true},
	{"ssn", "a social security number", true, true},
	{"socialsecurity", "a social security number", true, true},
	{"passportnumber", "a passport number", false, true},
	{"pin", "a PIN", true, false},
	{"otp", "a one-time code", true, false},
	{"totp", "a one-time code", true, false},
	{"hotp", "a one-time code", true, false},
	{"onetimecode", "a one-time code", true, true},
	{"verificationcode", "a one-time code", true, true},
	{"2facode", "a one-time code", true, true},
	{"mfacode", "a one-time code", true, true},
	{"mfatoken", "a one-time code", true, true},
	{"seedphrase", "a wallet seed phrase", false, true},
	{"recoveryphrase", "a wallet seed phrase", false, true},
	{"mnemonic", "a wallet seed phrase", false, false},
	{"sessioncookie", "a session cookie", false, true},
	{"authcookie", "a session cookie", false, true},
}

// valueWords may follow a secret and still name the secret itself:
// "password_confirmation", "pin_code", "secret_value", "private_key_pem".
// Any other word after it makes the name about the secret ("secret_name",
// "pin_version", "token_count", "api_key_id", "password_policy").
var valueWords = map[string]bool{
	"value": true, "string": true, "text": true, "input": true, "plain": true, "plaintext": true, "raw": true,
	"confirm": true, "confirmation": true, "again": true, "repeat": true, "verify": true, "check": true,
	"code": true, "number": true, "data": true, "pem": true, "b64": true, "base64": true, "hex": true, "encoded": true,
}

// notACredentialBefore lists words that make a token a position or a
// quantity ("next_token", "page_token", "max_tokens") rather than a
// credential.
var notACredentialBefore = map[string]bool{
	"next": true, "page": true, "pagination": true, "continuation": true, "cursor": true, "sync": true, "resume": true,
	"idempotency": true, "max": true, "min": true, "num": true, "total": true, "input": true, "output": true,
	"prompt": true, "completion": true, "stop": true, "special": true, "eos": true, "bos": true, "pad": true,
}

// Credential reports whether a property name or title looks like a request
// for a secret that form mode must not ask for (passwords, API keys, tokens,
// private keys, credentials, payment card numbers and codes, bank account
// numbers, PINs, social security numbers, one-time codes, seed phrases,
// session cookies). It returns what it looks like ("a password") and true.
//
// The name is split into words at separators, punctuation and camelCase
// boundaries ("clientSecret", "API_KEY", "github-pat"), case ignored, and
// a secret counts only as the head of the name: the last word, or followed
// only by words such as "value", "confirmation" or "code". So "password",
// "new_password", "pin_code" and "github_pat" are credentials, while
// "secret_name", "pin_version", "token_count", "api_key_id" and
// "password_policy" are about one; words that merely contain one
// ("tokenizer", "pinned", "spinner", "secretary") are not, and neither are
// positions and counts ("next_token", "max_tokens").
func Credential(name string) (what string, ok bool) {
	return credentialName(splitWords(name), false)
}

// CredentialProperty is the lint the generator runs on a property: its
// name and title with Credential, its description with CredentialInProse,
// weighed by its kind: the JSON type ("string", "integer", "number",
// "boolean", "array"), or "enum" for a string from fixed choices. A
// boolean, a choice or a multi-select is never a credential
// ("remember_password", "auth_method"), and an integer or number only one
// that is a number (a PIN, a card number, a one-time code), never a length
// or a lifetime ("password_min_length", "token_ttl"). It returns what the
// property looks like and where that was seen: "name", "title" or
// "description".
func CredentialProperty(kind, name, title, description string) (what, where string, ok bool) {
	var numeric bool
	switch kind {
	case "boolean", "array", "enum":
		return "", "", false
	case "integer", "number":
		numeric = true
	}
	if what, ok := credentialName(splitWords(name), numeric); ok {
		return what, "name", true
	}
	if title != "" {
		if what, ok := credentialName(splitWords(title), numeric); ok {
			return what, "title", true
		}
	}
	if description != "" && !numeric {
		if what, ok := CredentialInProse(description); ok {
			return what, "description", true
		}
	}
	return "", "", false
}

func credentialName(ws []string, numeric bool) (string, bool) {
	ws = trimDigits(ws)
	for end := range ws {
		s, start, ok := secretEndingAt(ws, end, false)
		if !ok || (numeric && !s.numeric) {
			continue
		}
		if start > 0 && notACredentialBefore[ws[start-1]] {
			continue
		}
		head := true
		for _, w := range ws[end+1:] {
			if !valueWords[w] {
				head = false
				break
			}
		}
		if head {
			return s.what, true
		}
	}
	return "", false
}

// secretEndingAt finds a secret whose text ends with word end, spanning up
// to four words. It may start inside the first word only when it is long
// enough not to hide in ordinary words ("dbpassword", "OpenAIAPIKey"); a
// short one must be whole words ("pin", never the end of "spin").
func secretEndingAt(ws []string, end int, prose bool) (secret, int, bool) {
	joined := ""
	for start := end; start >= 0 && start > end-4; start-- {
		joined = ws[start] + joined
		for _, s := range secrets {
			if prose && !s.prose {
				continue
			}
			texts := []string{s.text}
			if len(s.text) >= 6 {
				texts = append(texts, s.text+"s") // "passwords", "secrets"; never "tokens", "pins"
			}
			for _, text := range texts {
				if !strings.HasSuffix(joined, text) {
					continue
				}
				before := len(joined) - len(text) // bytes of ws[start] before the secret
				if before >= len(ws[start]) {
					continue // it starts in a later word: found with a later start
				}
				if before == 0 || (!prose && len(s.text) >= 6) {
					return s, start, true
				}
			}
		}
	}
	return secret{}, 0, false
}

// trimDigits drops digits that end a word ("password2", "cvv2", "oauth2"),
// keeping words that are only digits.
func trimDigits(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		t := strings.TrimRightFunc(w, unicode.IsDigit)
		if t == "" {
			t = w
		}
		out[i] = t
	}
	return out
}

// proseLead is how many words a description may start with before the
// secret it describes: a verb, an article, an owner ("paste the", "your
// OpenAI").
const proseLead = 5

// proseNotAsked lists words that, shortly before a secret in a
// description, say the property is not the secret itself: "the name of
// the API key", "a file containing the password", "not the password".
var proseNotAsked = map[string]bool{
	"not": true, "no": true, "without": true, "never": true, "except": true, "instead": true, "whether": true,
	"name": true, "names": true, "id": true, "ids": true, "path": true, "file": true, "containing": true, "contains": true,
	"holding": true, "holds": true, "storing": true, "stores": true, "env": true, "environment": true,
	"variable": true, "reference": true, "separately": true,
}

// CredentialInProse is Credential for a description: prose uses "token",
// "pin" and "secret" innocently ("a secret santa", "pin the version"), so
// it recognises only the phrases ("password", "API key", "card number"),
// as whole words ("API keys", "your password", not "compass words"), and
// only where the text describes the secret itself: among its first five
// words ("Your OpenAI API key", "Paste the access token here", not "User
// name for login; the password is asked separately"), not followed by a
// word such as "name", "length" or "policy", and not after "not", "the
// name of", "a file containing" or the like.
func CredentialInProse(text string) (what string, ok bool) {
	ws := trimDigits(splitWords(text))
	for end := range ws {
		s, start, ok := secretEndingAt(ws, end, true)
		if !ok {
			continue
		}
		if start >= proseLead {
			break // a mention further on is about something else
		}
		if end+1 < len(ws) && !valueWords[ws[end+1]] && proseQualifier[ws[end+1]] {
			continue
		}
		asked := true
		for _, w := range ws[max(0, start-3):start] {
			if proseNotAsked[w] {
				asked = false
			}
		}
		if asked {
			return s.what, true
		}
	}
	return "", false
}

// proseQualifier lists words that, right after a secret in prose, make it
// the subject of something else: "the password policy", "API key name".
var proseQualifier = map[string]bool{
	"name": true, "names": true, "id": true, "ids": true, "policy": true, "policies": true, "length": true,
	"hint": true, "file": true, "path": true, "reset": true, "rotation": true, "manager": true, "vault": true,
	"env": true, "variable": true, "header": true, "prefix": true, "type": true, "count": true, "expiry": true,
	"expiration": true, "strength": true, "rules": true, "requirements": true, "field": true, "store": true,
	"hash": true, "protected": true, "format": true, "usage": true, "limit": true,
}

// splitWords lowercases s and splits it into words at every rune that is not
// a letter or digit and at camelCase boundaries: "myAPIKey2" gives "my",
// "api", "key2". Digits stay with the word before them.
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	var prev rune
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			prev = 0
			continue
		}
		if unicode.IsUpper(r) && prev != 0 {
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			// "aB" starts a word at B; "ABc" starts one at B too (APIKey).
			if !unicode.IsUpper(prev) || unicode.IsLower(next) {
				flush()
			}
		}
		cur.WriteRune(unicode.ToLower(r))
		prev = r
	}
	flush()
	return out
}
