// Parse a sketch read from stdin with acorn as the classic script the
// renderer's harness runs it as, and print {"ok": true} or the first syntax
// error with its 1-based line and column.
"use strict";
const acorn = require(process.argv[2]);
const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const code = Buffer.concat(chunks).toString("utf8");
  let result = { ok: true };
  try {
    acorn.parse(code, { ecmaVersion: "latest", sourceType: "script" });
  } catch (e) {
    if (!(e instanceof SyntaxError) || !e.loc) throw e;
    // acorn ends its message with " (line:column)"; the caller gets them as numbers.
    result = { ok: false, message: e.message.replace(/ \(\d+:\d+\)$/, ""),
               line: e.loc.line, column: e.loc.column + 1 };
  }
  process.stdout.write(JSON.stringify(result));
});
