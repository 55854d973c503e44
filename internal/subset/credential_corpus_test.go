package subset

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestCredentialCorpus measures the credential lint on real property names
// and descriptions (testdata/credentials.txt) and prints its precision and
// recall; both must be at least 95%.
func TestCredentialCorpus(t *testing.T) {
	f, err := os.Open("testdata/credentials.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tp, fp, fn, tn int
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, " ", 4)
		if len(fields) < 3 || (fields[0] != "flag" && fields[0] != "ok") {
			t.Fatalf("credentials.txt:%d: want LABEL KIND NAME [DESCRIPTION], got %q", n, line)
		}
		label, kind, name := fields[0], fields[1], fields[2]
		description := ""
		if len(fields) == 4 {
			description = fields[3]
		}
		what, where, got := CredentialProperty(kind, name, "", description)
		switch {
		case got && label == "flag":
			tp++
		case got:
			fp++
			t.Logf("credentials.txt:%d: false positive: %s %s %q looks like %s (%s)", n, kind, name, description, what, where)
		case label == "flag":
			fn++
			t.Logf("credentials.txt:%d: false negative: %s %s %q", n, kind, name, description)
		default:
			tn++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	total := tp + fp + fn + tn
	if total < 150 {
		t.Fatalf("the corpus has %d cases; it needs at least 150", total)
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	t.Logf("credential lint on %d cases (%d should flag, %d must not): precision %.1f%% (%d/%d), recall %.1f%% (%d/%d)",
		total, tp+fn, fp+tn, 100*precision, tp, tp+fp, 100*recall, tp, tp+fn)
	if precision < 0.95 || recall < 0.95 {
		t.Errorf("precision %.1f%% and recall %.1f%% must both be at least 95%%", 100*precision, 100*recall)
	}
}
