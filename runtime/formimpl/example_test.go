package formimpl_test

import (
	"fmt"

	"github.com/go-elicit/elicit/runtime/formimpl"
)

// The runtime accepts generated code of a range of contract versions, so
// upgrading it does not break files generated before; elicitgen writes the
// newest and checks the range of the runtime in the build before writing.
func Example() {
	fmt.Printf("this runtime accepts code generated for contract versions %d to %d\n", formimpl.MinVersion, formimpl.MaxVersion)
	// Output: this runtime accepts code generated for contract versions 2 to 5
}
