// Drives the MCP Inspector's web UI in headless Chromium through examples/ze
// and prints one JSON line per flow: what the user saw. The Go test
// (inspector_test.go) asserts it.
//
//	node inspector.mjs --list
//	node inspector.mjs --chromium PATH --port N --shots DIR --era legacy|modern --url URL [FLOW...]
//	node inspector.mjs --chromium PATH --port N --shots DIR --era legacy|modern --stdio ZE [FLOW...]
//
// It starts the Inspector's web server (its launcher, from node_modules) on
// loopback port N (and N+1, N+2 for the MCP Apps sandbox and app origin),
// with a scratch HOME, a random API token and secrets in memory, connects
// the ad-hoc server from the UI, then runs each flow by clicking as a user
// would. Screenshots of each step go to DIR.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const launcher = path.join(here, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");

const askCommand = "Which ze command should run?";
const askPeer = "Describe the new BGP peer";

// Each flow clicks through one tool call and returns the result's text.
const flows = {
  // ze_execute without a command: the user is asked, and answers.
  "execute-accept": async (ui) => {
    await ui.execute("ze_execute");
    await ui.answer(askCommand, async (d) => {
      await d.getByRole("textbox", { name: "Command" }).fill("show bgp peer list");
    }, "Submit");
  },
  "execute-decline": async (ui) => {
    await ui.execute("ze_execute");
    await ui.answer(askCommand, null, "Decline");
  },
  "execute-cancel": async (ui) => {
    await ui.execute("ze_execute");
    await ui.answer(askCommand, null, "Cancel");
  },
  // ze_add_peer: an address the server refuses, so it asks again (re-ask),
  // then a valid one, then the second form, the confirmation.
  "add-peer-reask": async (ui) => {
    await ui.execute("ze_add_peer");
    await ui.answer(askPeer, async (d) => {
      await d.getByRole("textbox", { name: "Peer address" }).fill("not-an-ip");
      await d.getByRole("textbox", { name: "AS number" }).fill("65001");
    }, "Submit");
    await ui.answer(`${askPeer} — "address" must be an IP address; please correct it`, async (d) => {
      await d.getByRole("textbox", { name: "Peer address" }).fill("192.0.2.7");
    }, "Submit");
    await ui.answer("Add peer 192.0.2.7 AS 65001?", async (d) => {
      await d.getByRole("checkbox", { name: "Add this peer" }).check();
    }, "Submit");
  },
  // The second form declined.
  "add-peer-confirm-declined": async (ui) => {
    await ui.execute("ze_add_peer");
    await ui.answer(askPeer, async (d) => {
      await d.getByRole("textbox", { name: "Peer address" }).fill("192.0.2.7");
      await d.getByRole("textbox", { name: "AS number" }).fill("65001");
    }, "Submit");
    await ui.answer("Add peer 192.0.2.7 AS 65001?", null, "Decline");
  },
};

function parseArgs(argv) {
  const o = { flows: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case "--list": o.list = true; break;
      case "--chromium": o.chromium = argv[++i]; break;
      case "--port": o.port = Number(argv[++i]); break;
      case "--shots": o.shots = argv[++i]; break;
      case "--era": o.era = argv[++i]; break;
      case "--url": o.url = argv[++i]; break;
      case "--stdio": o.stdio = argv[++i]; break;
      default: o.flows.push(a);
    }
  }
  return o;
}

// startInspector runs the web server and resolves to its URL (with the
// token) once it says it is up.
function startInspector(o, home) {
  const token = randomBytes(16).toString("hex");
  const target = o.url
    ? ["--transport", "http", "--server-url", o.url]
    : ["--transport", "stdio", "--", o.stdio, "-stdio"];
  const args = [launcher, "--web", "--protocol-era", o.era, ...target];
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    CLIENT_PORT: String(o.port),
    MCP_SANDBOX_PORT: String(o.port + 1),
    MCP_APP_ORIGIN_PORT: String(o.port + 2),
    HOST: "127.0.0.1",
    MCP_INSPECTOR_API_TOKEN: token,
    MCP_INSPECTOR_SECRET_STORE: "memory",
    MCP_AUTO_OPEN_ENABLED: "false",
    MCP_STORAGE_DIR: path.join(home, "storage"),
  };
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Inspector did not start in 60 s:\n${out}`)), 60000);
    const onData = (b) => {
      out += b.toString();
      const m = out.match(/is up and running at:\s+(\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], output: () => out });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the Inspector exited (${code}):\n${out}`));
    });
  });
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.list) {
    console.log(Object.keys(flows).join("\n"));
    return;
  }
  const names = o.flows.length ? o.flows : Object.keys(flows);
  for (const n of names) {
    if (!flows[n]) throw new Error(`unknown flow ${n}`);
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "elicit-inspector-home-"));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "elicit-inspector-profile-"));
  let inspector, browser;
  try {
    inspector = await startInspector(o, home);
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: o.chromium,
      headless: true,
      viewport: { width: 1400, height: 1000 },
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const page = browser.pages()[0] ?? await browser.newPage();
    page.setDefaultTimeout(20000);
    let shot = 0;
    const snap = async (label) => {
      if (o.shots) await page.screenshot({ path: path.join(o.shots, `${String(++shot).padStart(2, "0")}-${label}.png`) });
    };
    await page.goto(inspector.url);
    // The switch's own input sits under its track: click the track.
    await page.getByRole("switch", { name: /^Connect or disconnect/ }).locator("xpath=..").locator(".mantine-Switch-track").click();
    await page.getByText("Connected", { exact: true }).waitFor();
    const protocol = (await page.getByText(/^MCP \d{4}-\d{2}-\d{2}$/).first().innerText()).slice(4);
    await snap("connected");
    await page.getByRole("radio", { name: "Tools" }).locator("xpath=..").click();

    for (const name of names) {
      const asked = [];
      let lastMessage = null;
      const ui = {
        async execute(tool) {
          const close = page.getByRole("button", { name: "Close results" });
          if (await close.isVisible()) await close.click();
          await page.getByRole("button", { name: tool, exact: true }).click();
          const run = page.getByRole("button", { name: "Execute Tool" });
          await run.waitFor();
          if (await run.isDisabled()) {
            await snap(`${name}-disabled`);
            throw new Error(`"Execute Tool" is disabled for ${tool} called with no arguments`);
          }
          await run.click();
        },
        // answer waits for the elicitation dialog asking want (a new one,
        // when the previous dialog asked the same), fills it and presses
        // the button.
        async answer(want, fill, button) {
          const dialog = page.getByRole("dialog", { name: "Elicitation Request" });
          const message = dialog.getByText(/^“.*”$/);
          const deadline = Date.now() + 20000;
          let got = null;
          for (;;) {
            if (await dialog.isVisible()) {
              got = (await message.innerText().catch(() => "")).replace(/^“|”$/g, "");
              if (got && got !== lastMessage) break;
            }
            if (Date.now() > deadline) throw new Error(`no elicitation dialog asking ${JSON.stringify(want)} (last seen ${JSON.stringify(got)})`);
            await page.waitForTimeout(100);
          }
          asked.push(got);
          lastMessage = got;
          if (got !== want) throw new Error(`the dialog asks ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
          if (fill) await fill(dialog);
          await snap(`${name}-${asked.length}`);
          await dialog.getByRole("button", { name: button, exact: true }).click();
        },
      };
      const report = { flow: name, protocol, asked };
      try {
        await flows[name](ui);
        const results = page.getByRole("heading", { name: "Results" })
          .locator("xpath=ancestor::div[contains(@class, 'mantine-Stack-root')][1]");
        // A result is a code block; a tool error an alert titled so.
        const shown = results.locator("pre, [role=alert]").first();
        await shown.waitFor();
        const text = (await shown.innerText()).trim();
        report.isError = text.startsWith("Tool Error\n");
        report.text = report.isError ? text.slice("Tool Error\n".length).trim() : text;
        await snap(`${name}-result`);
      } catch (e) {
        report.failure = String(e.message ?? e);
        await snap(`${name}-failed`).catch(() => {});
        // Leave no dialog open for the next flow.
        const cancel = page.getByRole("dialog").getByRole("button", { name: "Cancel", exact: true });
        if (await cancel.isVisible().catch(() => false)) await cancel.click().catch(() => {});
      }
      console.log(JSON.stringify(report));
    }
  } finally {
    await browser?.close().catch(() => {});
    if (inspector) {
      inspector.child.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 200));
    }
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => {
  console.log(JSON.stringify({ failure: String(e.stack ?? e) }));
  process.exit(1);
});
