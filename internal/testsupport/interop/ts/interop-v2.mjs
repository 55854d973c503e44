// interop-v2.mjs drives the conformance fixture (internal/cmd/conformance/fixture)
// with the official TypeScript MCP SDK v2 client (@modelcontextprotocol/client,
// pinned in package.json), on protocol 2026-07-28 or 2025-11-25, over Streamable
// HTTP, or over stdio, where its StdioClientTransport starts "FIXTURE -stdio"
// as its child process, once per case.
//
//	node interop-v2.mjs [--protocol V] URL [CASE...]
//	node interop-v2.mjs [--protocol V] --stdio FIXTURE [CASE...]
//	node interop-v2.mjs --list
//
// V is 2026-07-28 (the default; pinned, no fallback) or 2025-11-25 (the
// client's legacy initialize handshake).
//
// On 2025-11-25 the server asks with server-to-client requests, which the
// client's handlers answer. On 2026-07-28 it asks through input_required results, not
// server-to-client requests; the client's multi-round-trip auto-fulfilment
// (on by default, set explicitly here) answers them through the same
// handlers a 2025 client registers for elicitation/create,
// sampling/createMessage and roots/list, then retries the call.
//
// With no CASE it runs every case. For each case it prints one JSON line on
// standard output, in interop.mjs's shape:
//
//	{"case":NAME,"protocolVersion":V,"isError":B,"text":T,"elicitations":[...],"requests":[...]}
//
// or, when the call or the client failed, {"case":NAME,...,"failure":MESSAGE}
// (a JSON-RPC error answer also carries "errorCode"). Over stdio a report
// also carries "stderr", what the server wrote there. The script only
// reports; the Go test (v2_test.go) decides what is right. It exits 0 when
// every case ran to a report, 1 on a failure, 2 on bad usage.
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { caseTimeoutMs, endCase, listCases, parseTarget, recordResult, runCases, withinCaseTimeout } from './cli.mjs';

// negotiation maps the protocol a run asks for (--protocol, 2026-07-28 by
// default) to the client's versionNegotiation mode: 2026-07-28 pinned (no
// fallback), or the legacy initialize handshake, which offers 2025-11-25.
const negotiation = { '2026-07-28': { pin: '2026-07-28' }, '2025-11-25': 'legacy' };

const accept = (content) => ({ action: 'accept', content });

// cases: tool and arguments, the client's capabilities, the elicitation
// answers replayed in order, and whether its model refuses. A capability
// left out has no handler either.
const all = ['elicitation', 'sampling', 'roots'];
const cases = {
  'sample': { tool: 'test_input_required_result_sampling', args: {}, capabilities: all, answers: [] },
  'sample-refused': { tool: 'test_input_required_result_sampling', args: {}, capabilities: all, answers: [], refuse: true },
  'roots': { tool: 'test_input_required_result_list_roots', args: {}, capabilities: all, answers: [] },
  // One round carries the name form, the model and the roots together.
  'together': { tool: 'test_input_required_result_multiple_inputs', args: {}, capabilities: all, answers: [accept({ name: 'Ada' })] },
  'together-declined': { tool: 'test_input_required_result_multiple_inputs', args: {}, capabilities: all, answers: [{ action: 'decline' }] },
  // The server asks only what the client declared.
  'elicitation-only': { tool: 'test_input_required_result_capabilities', args: {}, capabilities: ['elicitation'], answers: [accept({ ok: true })] },
  'no-capability': { tool: 'test_input_required_result_capabilities', args: {}, capabilities: [], answers: [] },
  'sample-no-capability': { tool: 'test_input_required_result_sampling', args: {}, capabilities: ['elicitation', 'roots'], answers: [] },
};

function stdioTransport(bin, report) {
  const transport = new StdioClientTransport({ command: bin, args: ['-stdio'], stderr: 'pipe' });
  report.stderr = '';
  transport.stderr.on('data', (chunk) => {
    report.stderr += chunk.toString();
  });
  return transport;
}

async function runCase(target, protocol, name, c) {
  const report = { case: name, elicitations: [], requests: [] };
  const capabilities = {};
  for (const cap of c.capabilities) capabilities[cap] = {};
  const client = new Client(
    { name: 'elicit-interop-ts-v2', version: '1.0.0' },
    {
      capabilities,
      versionNegotiation: { mode: negotiation[protocol] },
      inputRequired: { autoFulfill: true },
    },
  );
  if (c.capabilities.includes('sampling')) {
    client.setRequestHandler('sampling/createMessage', async () => {
      report.requests.push('sampling/createMessage');
      if (c.refuse) throw new Error('User rejected sampling request');
      return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'ts-model', stopReason: 'endTurn' };
    });
  }
  if (c.capabilities.includes('roots')) {
    client.setRequestHandler('roots/list', async () => {
      report.requests.push('roots/list');
      return { roots: [{ uri: 'file:///ts', name: 'ts' }] };
    });
  }
  if (c.capabilities.includes('elicitation')) {
    const answers = [...c.answers];
    client.setRequestHandler('elicitation/create', async (request) => {
      const p = request.params;
      report.elicitations.push({ message: p.message, mode: p.mode ?? null, requestedSchema: p.requestedSchema ?? null });
      return answers.shift() ?? { action: 'cancel' };
    });
  }
  const transport = target.stdio ? stdioTransport(target.stdio, report) : new StreamableHTTPClientTransport(new URL(target.url));
  try {
    await withinCaseTimeout(async () => {
      await client.connect(transport, { timeout: caseTimeoutMs });
      report.protocolVersion = client.getNegotiatedProtocolVersion() ?? null;
      const res = await client.callTool({ name: c.tool, arguments: c.args }, { timeout: caseTimeoutMs });
      recordResult(report, res);
    });
  } catch (err) {
    report.protocolVersion ??= client.getNegotiatedProtocolVersion() ?? null;
    report.failure = err instanceof Error ? err.message : String(err);
    if (err instanceof ProtocolError) report.errorCode = err.code;
  } finally {
    await endCase(target, transport, client);
  }
  return report;
}

async function main(argv) {
  if (argv[0] === '--list') return listCases(cases);
  const usage = 'usage: node interop-v2.mjs [--protocol V] URL [CASE...] | [--protocol V] --stdio FIXTURE [CASE...] | --list';
  let protocol = '2026-07-28';
  if (argv[0] === '--protocol') {
    if (!Object.hasOwn(negotiation, argv[1] ?? '')) {
      console.error(`interop-v2: unknown protocol ${JSON.stringify(argv[1])}; known: ${Object.keys(negotiation).join(', ')}`);
      return 2;
    }
    protocol = argv[1];
    argv = argv.slice(2);
  }
  const parsed = parseTarget('interop-v2', argv, usage);
  if (parsed === null) return 2;
  const { target, names } = parsed;
  return runCases('interop-v2', cases, names, (name, c) => runCase(target, protocol, name, c));
}

process.exitCode = await main(process.argv.slice(2));
