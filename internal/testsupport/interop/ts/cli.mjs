// cli.mjs is what interop.mjs and interop-v2.mjs share: the target
// arguments, the time limit of one case, and running the cases to one JSON
// report line each.

// caseTimeoutMs bounds one case: connect, the call and what it asks.
export const caseTimeoutMs = 15000;

// parseTarget reads "--stdio BIN [CASE...]" or "URL [CASE...]" into
// {target: {stdio: BIN} or {url: URL}, names}, or, after saying why on
// stderr, returns null.
export function parseTarget(prog, argv, usage) {
  if (argv[0] === '--stdio') {
    if (argv.length < 2 || argv[1] === '') {
      console.error(usage);
      return null;
    }
    return { target: { stdio: argv[1] }, names: argv.slice(2) };
  }
  if (argv.length < 1 || argv[0].startsWith('-')) {
    console.error(usage);
    return null;
  }
  try {
    new URL(argv[0]);
  } catch {
    console.error(`${prog}: bad server URL ${JSON.stringify(argv[0])}`);
    return null;
  }
  return { target: { url: argv[0] }, names: argv.slice(1) };
}

// withinCaseTimeout runs body, or rejects when it is still running after
// caseTimeoutMs.
export async function withinCaseTimeout(body) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`case still running after ${caseTimeoutMs} ms`)), caseTimeoutMs);
  });
  try {
    await Promise.race([body(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// runCases runs the cases named (every known case when names is empty) with
// run(name, case), printing each report as one JSON line. It returns the
// exit code: 0 when every case ran to a report without failure, 1 when one
// failed, 2 (after saying why) for an unknown name.
export async function runCases(prog, known, names, run) {
  for (const name of names) {
    if (!Object.hasOwn(known, name)) {
      console.error(`${prog}: unknown case ${JSON.stringify(name)}; known: ${Object.keys(known).join(', ')}`);
      return 2;
    }
  }
  let code = 0;
  for (const name of names.length > 0 ? names : Object.keys(known)) {
    const report = await run(name, known[name]);
    if (report.failure !== undefined) code = 1;
    console.log(JSON.stringify(report));
  }
  return code;
}

// listCases prints the names of the known cases, one a line, and returns
// the exit code 0.
export function listCases(known) {
  for (const name of Object.keys(known)) console.log(name);
  return 0;
}

// recordResult puts a tools/call result into the report: isError and the
// text of its text content.
export function recordResult(report, res) {
  report.isError = res.isError === true;
  report.text = (res.content ?? []).filter((x) => x.type === 'text').map((x) => x.text).join('');
}

// endCase ends a case's session (DELETE over HTTP, where there is one; over
// stdio closing the transport closes the server's stdin, and it exits) and
// closes the client; a failure here does not change what the case saw.
export async function endCase(target, transport, client) {
  if (!target.stdio) {
    try {
      await transport.terminateSession();
    } catch {}
  }
  try {
    await client.close();
  } catch {}
}
