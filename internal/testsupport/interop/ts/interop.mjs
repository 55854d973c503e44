// interop.mjs drives examples/ze with the official TypeScript MCP SDK client
// (@modelcontextprotocol/sdk, pinned in package.json) over Streamable HTTP,
// or over stdio, where the SDK's StdioClientTransport starts "ZE -stdio" as
// its child process, once per case.
//
//	node interop.mjs URL [CASE...]
//	node interop.mjs --stdio ZE [CASE...]
//	node interop.mjs --commit COMMIT REPO [CASE...]   examples/commit on REPO
//	node interop.mjs --sampling URL [CASE...]         the conformance fixture:
//	node interop.mjs --sampling-stdio FIXTURE [CASE...]  sampling and roots
//	node interop.mjs --list | --list-commit | --list-sampling
//
// With no CASE it runs every case. For each case it prints one JSON line on
// standard output:
//
//	{"case":NAME,"protocolVersion":V,"isError":B,"text":T,"elicitations":[...]}
//
// or, when the client itself failed (connect, request, timeout),
// {"case":NAME,"protocolVersion":V,"failure":MESSAGE,"elicitations":[...]}.
// Over stdio a report also carries "stderr", what the server wrote there.
// "elicitations" records every elicitation/create request the client saw
// (message, mode, requestedSchema) in order; a sampling case's "requests"
// the sampling/createMessage and roots/list requests, in order. The script only reports; the Go
// test (ts_test.go) decides what is right. It exits 0 when every case ran to a
// report, 1 on a failure, 2 on bad usage.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { caseTimeoutMs, endCase, listCases, parseTarget, recordResult, runCases, withinCaseTimeout } from './cli.mjs';

const peer = {
  address: '192.0.2.7',
  asn: 65001,
  family: 'ipv6-unicast',
  extra: ['l2vpn-evpn'],
  passive: true,
  contact: 'noc@example.net',
};

const accept = (content) => ({ action: 'accept', content });

// peerWithout is peer without the property named.
const peerWithout = (name) => Object.fromEntries(Object.entries(peer).filter(([k]) => k !== name));

// cases: tool and arguments, the elicitation answers replayed in order
// (null = a client without the elicitation capability), and optionally the
// protocol version the client offers in initialize.
const cases = {
  'accept': { tool: 'ze_execute', args: {}, answers: [accept({ command: 'show bgp peer list' })] },
  'accept-unknown': { tool: 'ze_execute', args: {}, answers: [accept({ command: 'reboot' })] },
  'decline': { tool: 'ze_execute', args: {}, answers: [{ action: 'decline' }] },
  'cancel': { tool: 'ze_execute', args: {}, answers: [{ action: 'cancel' }] },
  'command-given': { tool: 'ze_execute', args: { command: 'show version' }, answers: [] },
  'no-capability': { tool: 'ze_execute', args: {}, answers: null },
  // The TypeScript client checks only the result's shape (content values are
  // string, number, boolean or string[]), not the requested schema, so these
  // answers reach the server and only its own validation stands in the way.
  'bad-content': { tool: 'ze_execute', args: {}, answers: [accept({ command: 42 })] },
  'add-peer': { tool: 'ze_add_peer', args: {}, answers: [accept(peer), accept({ confirm: true })] },
  'add-peer-second-declined': { tool: 'ze_add_peer', args: {}, answers: [accept(peer), { action: 'decline' }] },
  'add-peer-bad-content': {
    tool: 'ze_add_peer',
    args: {},
    // ze re-asks once; the same bad answer again fails the call.
    answers: [accept({ asn: 'many', family: 'ipv9-unicast', passive: false }), accept({ asn: 'many', family: 'ipv9-unicast', passive: false })],
  },
  // What a form UI sends for an optional field typed into and cleared: "".
  'add-peer-cleared-contact': {
    tool: 'ze_add_peer',
    args: {},
    answers: [accept({ ...peer, contact: '' }), accept({ confirm: true })],
  },
  // A re-ask fixes a mistyped address: the second answer is used.
  'add-peer-reask': {
    tool: 'ze_add_peer',
    args: {},
    answers: [accept({ ...peer, address: 'not-an-ip' }), accept(peer), accept({ confirm: true })],
  },
  'add-peer-no-capability': { tool: 'ze_add_peer', args: {}, answers: null },
  // The SDK always offers its latest version (2025-11-25); these cases
  // rewrite the offer in initialize to see the 2025-06-18 behaviour.
  'legacy-2025-06-18-accept': {
    tool: 'ze_execute',
    args: {},
    answers: [accept({ command: 'show bgp peer list' })],
    offer: '2025-06-18',
  },
  // 2025-06-18 cannot carry PeerForm's optional multi-select: it is left
  // out of the question, so the answer has no "extra".
  'legacy-2025-06-18-add-peer': { tool: 'ze_add_peer', args: {}, answers: [accept(peerWithout('extra')), accept({ confirm: true })], offer: '2025-06-18' },
};

// commitCases drive examples/commit over stdio (--commit): its commit tool
// offers the repository's changed files and branches as run-time choices.
// The TypeScript client does not check answers against the schema, so an
// answer outside the choices reaches the server.
const commitCases = {
  'commit-choices': { tool: 'commit', args: { message: 'add b' }, answers: [accept({ files: ['b.go'] })] },
  'commit-outside-choices': {
    tool: 'commit',
    args: { message: 'add secret' },
    answers: [accept({ files: ['secret.txt'], branch: 'main' })],
  },
};

// samplingCases drive the conformance fixture (--sampling URL, or
// --sampling-stdio FIXTURE): the client declares sampling and roots, its
// model answers "Paris" (or refuses, with refuse) and its roots are
// file:///ts.
const samplingCases = {
  'sample': { tool: 'test_sampling', args: { prompt: 'Capital of France?' }, answers: [], sampling: {} },
  'sample-refused': { tool: 'test_sampling', args: { prompt: 'Capital of France?' }, answers: [], sampling: { refuse: true } },
  'roots': { tool: 'test_input_required_result_list_roots', args: {}, answers: [], sampling: {} },
  'together': { tool: 'test_input_required_result_multiple_inputs', args: {}, answers: [accept({ name: 'Ada' })], sampling: {} },
};

// offeringFetch returns a fetch that rewrites the protocolVersion of the
// initialize request to version; every other request goes out unchanged.
function offeringFetch(version) {
  return async (url, init) => {
    if (init && typeof init.body === 'string') {
      const msg = JSON.parse(init.body);
      if (msg && msg.method === 'initialize') {
        msg.params.protocolVersion = version;
        init = { ...init, body: JSON.stringify(msg) };
      }
    }
    return fetch(url, init);
  };
}

// stdioTransport starts ze as a child process. The SDK tells the transport
// the negotiated version through setProtocolVersion if it has one (the
// HTTP transport does, for its header); the stdio transport has none, so
// this one records it. An offer is rewritten in the initialize message.
function stdioTransport(bin, args, offer, report) {
  const transport = new StdioClientTransport({ command: bin, args, stderr: 'pipe' });
  report.stderr = '';
  transport.stderr.on('data', (chunk) => {
    report.stderr += chunk.toString();
  });
  transport.setProtocolVersion = (version) => {
    transport.protocolVersion = version;
  };
  if (offer) {
    const send = transport.send.bind(transport);
    transport.send = (msg, options) => {
      if (msg && msg.method === 'initialize') {
        msg = { ...msg, params: { ...msg.params, protocolVersion: offer } };
      }
      return send(msg, options);
    };
  }
  return transport;
}

// target is {url}, {stdio: ZE} or {stdio: COMMIT, args: ['-C', REPO]}.
async function runCase(target, name, c) {
  const report = { case: name, elicitations: [] };
  const options = c.answers === null ? {} : { capabilities: { elicitation: {} } };
  if (c.sampling) options.capabilities = { ...options.capabilities, sampling: {}, roots: {} };
  const client = new Client({ name: 'elicit-interop-ts', version: '1.0.0' }, options);
  if (c.sampling) {
    report.requests = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      report.requests.push('sampling/createMessage');
      if (c.sampling.refuse) throw new Error('User rejected sampling request');
      return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'ts-model', stopReason: 'endTurn' };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      report.requests.push('roots/list');
      return { roots: [{ uri: 'file:///ts', name: 'ts' }] };
    });
  }
  if (c.answers !== null) {
    const answers = [...c.answers];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const p = request.params;
      report.elicitations.push({ message: p.message, mode: p.mode ?? null, requestedSchema: p.requestedSchema ?? null });
      return answers.shift() ?? { action: 'cancel' };
    });
  }
  const transport = target.stdio
    ? stdioTransport(target.stdio, target.args ?? ['-stdio'], c.offer, report)
    : new StreamableHTTPClientTransport(new URL(target.url), c.offer ? { fetch: offeringFetch(c.offer) } : undefined);
  try {
    await withinCaseTimeout(async () => {
      await client.connect(transport, { timeout: caseTimeoutMs });
      report.protocolVersion = transport.protocolVersion ?? null;
      const res = await client.callTool({ name: c.tool, arguments: c.args }, undefined, { timeout: caseTimeoutMs });
      recordResult(report, res);
    });
  } catch (err) {
    report.protocolVersion ??= transport.protocolVersion ?? null;
    report.failure = err instanceof Error ? err.message : String(err);
  } finally {
    await endCase(target, transport, client);
  }
  return report;
}

async function main(argv) {
  if (argv[0] === '--list') return listCases(cases);
  if (argv[0] === '--list-commit') return listCases(commitCases);
  if (argv[0] === '--list-sampling') return listCases(samplingCases);
  const usage =
    'usage: node interop.mjs URL [CASE...] | --stdio ZE [CASE...] | --commit COMMIT REPO [CASE...] | --sampling URL [CASE...] | --sampling-stdio FIXTURE [CASE...] | --list | --list-commit | --list-sampling';
  let target, names;
  let known = cases;
  if (argv[0] === '--commit') {
    if (argv.length < 3 || argv[1] === '' || argv[2] === '') {
      console.error(usage);
      return 2;
    }
    target = { stdio: argv[1], args: ['-C', argv[2]] };
    names = argv.slice(3);
    known = commitCases;
  } else if (argv[0] === '--sampling' || argv[0] === '--sampling-stdio') {
    if (argv.length < 2 || argv[1] === '') {
      console.error(usage);
      return 2;
    }
    target = argv[0] === '--sampling' ? { url: argv[1] } : { stdio: argv[1], args: ['-stdio'] };
    names = argv.slice(2);
    known = samplingCases;
  } else {
    const parsed = parseTarget('interop', argv, usage);
    if (parsed === null) return 2;
    ({ target, names } = parsed);
  }
  return runCases('interop', known, names, (name, c) => runCase(target, name, c));
}

process.exitCode = await main(process.argv.slice(2));
