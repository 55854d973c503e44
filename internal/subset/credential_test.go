package subset

import (
	"reflect"
	"testing"
)

func TestCredential(t *testing.T) {
	secrets := map[string]string{
		"password":                   "a password",
		"Password":                   "a password",
		"PASSWORD":                   "a password",
		"newPassword":                "a password",
		"confirm_password":           "a password",
		"db-passwd":                  "a password",
		"Enter your password":        "a password",
		"passphrase":                 "a password",
		"sshPassphrase":              "a password",
		"passcode":                   "a password",
		"one time password":          "a password",
		"secret":                     "a secret",
		"client_secret":              "a secret",
		"clientSecret":               "a secret",
		"webhook secret":             "a secret",
		"secrets":                    "a secret",
		"token":                      "a token",
		"accessToken":                "a token",
		"access_token":               "a token",
		"GITHUB_TOKEN":               "a token",
		"Personal access token":      "a token",
		"authtoken":                  "a token",
		"refresh-token":              "a token",
		"oauth2Token":                "a token",
		"apiKey":                     "an API key",
		"api_key":                    "an API key",
		"api-key":                    "an API key",
		"API Key":                    "an API key",
		"APIKey":                     "an API key",
		"apikey":                     "an API key",
		"OpenAI API key":             "an API key",
		"awsAccessKey":               "an access key",
		"pwd":                        "a password",
		"github_pat":                 "a token",
		"bearer":                     "a token",
		"aws_secret_access_key":      "an access key",
		"privateKey":                 "a private key",
		"private key (PEM)":          "a private key",
		"credential":                 "a credential",
		"dbCredentials":              "a credential",
		"cardNumber":                 "a payment card number",
		"card number":                "a payment card number",
		"credit_card":                "a payment card number",
		"creditCardNumber":           "a payment card number",
		"Debit card":                 "a payment card number",
		"cvv":                        "a card security code",
		"CVC":                        "a card security code",
		"ccv":                        "a card security code",
		"card_cvv2":                  "a card security code",
		"iban":                       "a bank account number (IBAN)",
		"IBAN":                       "a bank account number (IBAN)",
		"bankAccount":                "a bank account number",
		"routing number":             "a bank account number",
		"pin":                        "a PIN",
		"PIN":                        "a PIN",
		"pin code":                   "a PIN",
		"cardPin":                    "a PIN",
		"ssn":                        "a social security number",
		"SSN":                        "a social security number",
		"social security number":     "a social security number",
		"otp":                        "a one-time code",
		"2fa code":                   "a one-time code",
		"mfaCode":                    "a one-time code",
		"seed phrase":                "a wallet seed phrase",
		"mnemonic":                   "a wallet seed phrase",
		"What is your bearer token?": "a token",
		"session_cookie":             "a session cookie",
		"Auth cookie":                "a session cookie",
	}
	for name, want := range secrets {
		what, ok := Credential(name)
		if !ok || what != want {
			t.Errorf("Credential(%q) = %q, %v; want %q, true", name, what, ok, want)
		}
	}
	harmless := []string{
		"", "name", "email", "username", "user_name", "command", "message", "tokenizer", "tokenize", "Tokenizer model", "tokens", "maxTokens", "max_tokens",
		"token_count", "tokenCount", "token limit", "pinned", "spinner", "opinion", "pinyin", "mapping", "keyboard", "key", "sortKey", "keyName", "publicKey",
		"public key", "primary key", "monkey", "turkey", "secretary", "passenger", "compass", "bypass", "passage", "passport", "classname", "class_name",
		"caribbean", "hotpink", "cvsRoot", "account", "account name", "card title", "tokenomics", "access key id", "pin_version", "secret_name", "working directory", "description", "secretariat",
		"spinach", "happiness",
	}
	for _, name := range harmless {
		if what, ok := Credential(name); ok {
			t.Errorf("Credential(%q) = %q, true; want false", name, what)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		"myAPIKey2":        {"my", "api", "key2"},
		"client_secret":    {"client", "secret"},
		"HTTPServer":       {"http", "server"},
		"oauth2Token":      {"oauth2", "token"},
		"What's your PIN?": {"what", "s", "your", "pin"},
		"ÄrgerÜber":        {"ärger", "über"},
		"  --  ":           nil,
	} {
		if got := splitWords(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCredentialInProse(t *testing.T) {
	secrets := map[string]string{
		"Enter your password.":                   "a password",
		"The API keys of the account":            "an API key",
		"Your card number, without spaces":       "a payment card number",
		"paste the access token here":            "a token",
		"Passwords are checked on the server":    "a password",
		"the bank account to pay into":           "a bank account number",
		"Write down the recovery phrase somehow": "a wallet seed phrase",
	}
	for text, want := range secrets {
		if got, ok := CredentialInProse(text); !ok || got != want {
			t.Errorf("CredentialInProse(%q) = %q, %v; want %q", text, got, ok, want)
		}
	}
	prose := []string{
		"",
		"Pin the version; keep the token count low.",
		"It is no secret that the token budget is small.",
		"Compass words point north.",
		"The keyboard layout",
		"Your PIN code", // a whole word: fine in prose, flagged in a name
		"A credential-free description",
		"bypass the cache",
	}
	for _, text := range prose {
		if what, ok := CredentialInProse(text); ok {
			t.Errorf("CredentialInProse(%q) = %q, true; want false", text, what)
		}
	}
}

func TestCredentialProperty(t *testing.T) {
	for _, tc := range []struct {
		kind, name, title, description string
		what, where                    string
	}{
		{"string", "github_pat", "", "", "a token", "name"},
		{"string", "value", "API key", "", "an API key", "title"},
		{"string", "value", "", "Your OpenAI API key", "an API key", "description"},
		{"integer", "pin", "", "", "a PIN", "name"},
		{"number", "card_number", "", "", "a payment card number", "name"},
		{"boolean", "remember", "", "Remember the password on this device", "", ""},
		{"boolean", "password", "", "", "", ""},
		{"integer", "password_min_length", "", "", "", ""},
		{"integer", "token_ttl", "", "Lifetime of the access token", "", ""},
		{"array", "secrets", "", "", "", ""},
		{"enum", "token", "", "", "", ""},
		{"string", "secret_name", "", "The name of the secret", "", ""},
		{"string", "pin_version", "", "", "", ""},
	} {
		what, where, ok := CredentialProperty(tc.kind, tc.name, tc.title, tc.description)
		if what != tc.what || where != tc.where || ok != (tc.what != "") {
			t.Errorf("CredentialProperty(%q, %q, %q, %q) = %q, %q, %v; want %q, %q", tc.kind, tc.name, tc.title, tc.description, what, where, ok, tc.what, tc.where)
		}
	}
}
