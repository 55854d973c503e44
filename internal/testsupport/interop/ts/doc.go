// Package ts holds the interop tests of the ze example and the conformance
// fixture against the official TypeScript MCP SDK clients: v1,
// @modelcontextprotocol/sdk, and v2, @modelcontextprotocol/client, each
// pinned to one exact version in package.json and package-lock.json.
//
//	go test ./internal/testsupport/interop/ts
//
// The tests need Node.js 20 or newer (the v2 client's engines field; the
// v1 SDK's @hono/node-server says so too) and npm on PATH; without them
// they skip, saying why, and under CI=true they fail instead. They install
// the pinned clients with npm ci into node_modules here whenever
// node_modules is missing or was installed from a different package.json or
// package-lock.json (a stamp file records their hash).
//
// TestTypeScriptSDKClient builds examples/ze, starts it on a free loopback
// port and runs interop.mjs once per case; then it runs the stdio cases
// (stdioCases: accept, decline, no capability and more), where the SDK's
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
// together). The v1 client speaks 2025-11-25 at most:
//
//	node interop.mjs --sampling URL [CASE...]
//	node interop.mjs --sampling-stdio FIXTURE [CASE...]
//	node interop.mjs --list-sampling
//
// TestTypeScriptSDKV2Client drives the conformance fixture with the v2
// client on 2026-07-28 (pinned, with its multi-round-trip auto-fulfilment
// answering the input_required results) and on 2025-11-25 (its legacy
// handshake), over HTTP and over stdio (v2Cases: the client's form, model
// and roots answer runtime.Elicit, runtime.Sample and runtime.ListRoots,
// alone and asked together with runtime.AskTogether; a declined form; a
// refusing model; a client without the sampling capability):
//
//	node interop-v2.mjs [--protocol V] URL [CASE...]
//	node interop-v2.mjs [--protocol V] --stdio FIXTURE [CASE...]
//	node interop-v2.mjs --list
//
// The two scripts share cli.mjs (arguments, time limit, reports).
//
// The scripts only report what the client saw; the tests assert it. To move
// a pin, edit package.json and run npm install here; the lock file must
// keep no "resolved" URLs (npm ci does not need them).
package ts
