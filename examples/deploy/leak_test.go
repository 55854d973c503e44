package deploy_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the kit leaves nothing running once the tests end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
