// Package inspector holds the interop test of the ze example against a
// real UI client: the MCP Inspector's web UI (@modelcontextprotocol/inspector
// 2.12.0, pinned with playwright-core and Node 22 in package.json and
// package-lock.json), in headless Chromium from the system's packages.
//
//	go test ./internal/testsupport/interop/inspector
//
// inspector.mjs starts the Inspector's web server on loopback, opens it in
// Chromium (playwright-core, never a browser of its own: the executable is
// /usr/bin/chromium, or $ELICIT_CHROMIUM), connects ze and clicks through
// each flow as a user would: ze_execute without a command, asked and
// accepted, declined and canceled; ze_add_peer's two forms, with an
// address the server refuses first, so that it asks again. The test runs
// it over Streamable HTTP and stdio, each on the legacy era (2025-11-25)
// and on 2026-07-28 (the Inspector's --protocol-era modern), and asserts
// what the user saw. Screenshots of every step go to a temporary
// directory, kept and named in the log only when the test fails.
//
// The test needs node and npm on PATH (npm ci installs the pinned modules
// here, into node_modules, whenever package.json or package-lock.json
// changed) and Chromium. Without them it skips, saying why; under CI=true
// it fails instead. make test installs Chromium with apt-get under
// CI=true when it is missing.
package inspector
