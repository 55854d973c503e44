package subset

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// compounds are secrets recognised in the words of a name run together
// ("api_key", "apiKey", "API key" and "apikey" all give "apikey"). Only
// spellings that do not occur inside ordinary words belong here.
var compounds = []struct{ text, what string }{
	{"password", "a password"},
	{"passwd", "a password"},
	{"passphrase", "a password"},
	{"passcode", "a password"},
	{"apikey", "an API key"},
	{"accesskey", "an access key"},
	{"secretkey", "a secret key"},
	{"privatekey", "a private key"},
	{"privkey", "a private key"},
	{"signingkey", "a private key"},
	{"encryptionkey", "a private key"},
	{"accesstoken", "a token"},
	{"authtoken", "a token"},
	{"refreshtoken", "a token"},
	{"bearertoken", "a token"},
	{"sessiontoken", "a token"},
	{"apitoken", "a token"},
	{"clientsecret", "a secret"},
	{"apisecret", "a secret"},
	{"cardnumber", "a payment card number"},
	{"creditcard", "a payment card number"},
	{"debitcard", "a payment card number"},
	{"cardsecuritycode", "a card security code"},
	{"bankaccount", "a bank account number"},
	{"routingnumber", "a bank account number"},
	{"sortcode", "a bank account number"},
	{"socialsecurity", "a social security number"},
	{"passportnumber", "a passport number"},
	{"seedphrase", "a wallet seed phrase"},
	{"recoveryphrase", "a wallet seed phrase"},
	{"onetimecode", "a one-time code"},
	{"sessioncookie", "a session cookie"},
	{"authcookie", "a session cookie"},
}

// words are secrets recognised only as whole words, because as substrings
// they hide in ordinary ones ("tokenizer", "spinner", "classname").
var words = map[string]string{
	"secret":      "a secret",
	"secrets":     "a secret",
	"token":       "a token",
	"credential":  "a credential",
	"credentials": "a credential",
	"creds":       "a credential",
	"pin":         "a PIN",
	"cvv":         "a card security code",
	"cvv2":        "a card security code",
	"cvc":         "a card security code",
	"cvc2":        "a card security code",
	"ccv":         "a card security code",
	"iban":        "a bank account number (IBAN)",
	"ssn":         "a social security number",
	"otp":         "a one-time code",
	"totp":        "a one-time code",
	"hotp":        "a one-time code",
	"mnemonic":    "a wallet seed phrase",
}

// notASecretAfter lists words that turn "token" into a quantity or a kind
// ("token count", "token limit") rather than a credential.
var notASecretAfter = map[string]bool{
	"count": true, "counts": true, "limit": true, "limits": true, "budget": true,
	"usage": true, "length": true, "size": true, "type": true, "kind": true,
}

// Credential reports whether a property name or title looks like a request
// for a secret that form mode must not ask for (passwords, API keys, tokens,
// private keys, credentials, payment card numbers and codes, bank account
// numbers, PINs, social security numbers, one-time codes, seed phrases,
// session cookies). It
// returns what it looks like ("a password") and true.
//
// The name is split into words at separators, punctuation and camelCase
// boundaries ("clientSecret", "API_KEY", "Your card number"), case ignored.
// Whole words ("token", "pin", "cvv") and run-together phrases ("apikey",
// "cardnumber") are recognised; words that merely contain one ("tokenizer",
// "pinned", "spinner", "opinion", "keyboard", "secretary") and counts such
// as "token count" or "max tokens" are not.
func Credential(name string) (what string, ok bool) {
	ws := splitWords(name)
	for i, w := range ws {
		if what, ok := words[w]; ok {
			if w == "token" && i+1 < len(ws) && notASecretAfter[ws[i+1]] {
				continue
			}
			return what, true
		}
		if (w == "2fa" || w == "mfa") && i+1 < len(ws) && (ws[i+1] == "code" || ws[i+1] == "token") {
			return "a one-time code", true
		}
	}
	joined := strings.Join(ws, "")
	for _, c := range compounds {
		if strings.Contains(joined, c.text) {
			return c.what, true
		}
	}
	return "", false
}

// CredentialInProse is Credential for a description: prose uses "token",
// "pin" and "secret" innocently ("a secret santa", "pin the version"), so
// it recognises only the run-together phrases ("password", "API key",
// "card number"), and only where one starts a word and ends in the last
// word it spans ("API keys", "your password"), not inside a run of words
// that merely spell it ("compass words").
func CredentialInProse(text string) (what string, ok bool) {
	ws := splitWords(text)
	for i := range ws {
		joined := ""
		for j := i; j < len(ws) && j < i+4; j++ {
			joined += ws[j]
			before := len(joined) - len(ws[j]) // the length of the words before ws[j]
			for _, c := range compounds {
				if len(c.text) > before && strings.HasPrefix(joined, c.text) {
					return c.what, true
				}
			}
		}
	}
	return "", false
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
