package subset

import "testing"

func TestSuggest(t *testing.T) {
	keys := []string{"title", "description", "minLength", "maxLength", "format", "minimum", "maximum", "default", "enum", "required"}
	for _, tc := range []struct{ word, want string }{
		{"maxLenght", "maxLength"}, // transposition
		{"maxlength", "maxLength"}, // case
		{"minLen", ""},             // too far
		{"titel", "title"},         // transposition
		{"descripton", "description"},
		{"requird", "required"},
		{"colour", ""},
		{"enm", "enum"},
		{"x", ""},
		{"", ""},
		{"title", ""}, // the word itself is no suggestion
	} {
		if got := Suggest(tc.word, keys); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	if got := Suggest("emial", Formats()); got != "email" {
		t.Errorf("Suggest(emial) = %q", got)
	}
	if got := Suggest("datetime", Formats()); got != "date-time" {
		t.Errorf("Suggest(datetime) = %q", got)
	}
	if got := DidYouMean("urI", Formats()); got != `: did you mean "uri"` {
		t.Errorf("DidYouMean(urI) = %q", got)
	}
	if got := DidYouMean("zzz", Formats()); got != "" {
		t.Errorf("DidYouMean(zzz) = %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"kitten", "sitting", 3},
		{"form", "from", 1}, {"forms", "form", 1}, {"ca", "abc", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
