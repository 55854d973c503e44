// Package ts holds the interop test of the ze example against the official
// TypeScript MCP SDK client, @modelcontextprotocol/sdk, pinned to one exact
// version in package.json and package-lock.json.
//
//	go test ./internal/testsupport/interop/ts
//
// The test needs Node.js 18 or newer and npm on PATH and fails, rather than
// skips, without them. It installs the pinned client with npm ci into
// node_modules here whenever node_modules is missing or was installed from a
// different package.json or package-lock.json (a stamp file records their
// hash), builds examples/ze, starts it on a free loopback port and runs
// interop.mjs once per case; then it runs the stdio cases (stdioCases:
// accept, decline, no capability and more), where the SDK's
// StdioClientTransport starts "ze -stdio" itself, one child per case, and
// each must end exactly as it does over HTTP:
//
//	node interop.mjs URL [CASE...]          one JSON line per case on stdout
//	node interop.mjs --stdio ZE [CASE...]   the same over stdio
//	node interop.mjs --list                 the case names
//
// TestTypeScriptSDKClientChoices drives examples/commit the same way, over
// stdio on a scratch git repository (commitCases: run-time choices and a
// prefilled branch, and an answer outside the choices):
//
//	node interop.mjs --commit COMMIT REPO [CASE...]
//	node interop.mjs --list-commit
//
// TestTypeScriptSDKClientSampling drives the conformance fixture
// (internal/cmd/conformance/fixture) over HTTP and, with its -stdio flag,
// over stdio (samplingCases: the client's model answers runtime.Sample, or
// refuses; its roots answer runtime.ListRoots; both with a form, asked
// together). The pinned client speaks 2025-11-25 at most:
//
//	node interop.mjs --sampling URL [CASE...]
//	node interop.mjs --sampling-stdio FIXTURE [CASE...]
//	node interop.mjs --list-sampling
//
// The script only reports what the client saw; the test asserts it. To move
// the pin, edit package.json and run npm install here; the lock file must
// keep no "resolved" URLs (npm ci does not need them).
package ts
