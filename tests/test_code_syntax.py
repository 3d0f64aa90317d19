"""The server's syntax check (acorn under Node): modern JavaScript parses,
errors carry their line and column, and a missing Node is no refusal."""
from __future__ import annotations

import pytest

from sketches import code_syntax
from sketches.code_syntax import SyntaxProblem, syntax_problem


class TestSyntaxProblem:
    def test_modern_javascript_parses(self):
        code = ("class Walker { step = 2; #hidden = 1; }\n"
                "const f = async (o) => o?.a ?? 2 ** 3;\n"
                "function setup() { createCanvas(10, 10, WEBGL); }\n")
        assert syntax_problem(code) is None

    @pytest.mark.parametrize("code, line, column", [
        ("function setup() {\n  let x = ;\n}\n", 2, 11),
        ("function setup() {\n  circle(1, 2\n}\n", 3, 1),
        # Columns count UTF-16 code units, as the browser and CodeMirror do.
        ("let s = '\U0001F600', x = ;\n", 1, 19),
    ])
    def test_an_error_has_its_line_and_column(self, code, line, column):
        problem = syntax_problem(code)
        assert (problem.line, problem.column) == (line, column)
        assert str(problem).startswith(f"Syntax error on line {line}, column {column}: ")

    def test_a_top_level_return_is_an_error_as_in_the_renderer_script(self):
        assert syntax_problem("return 1;\n").message == "'return' outside of function"

    def test_without_node_the_check_is_unavailable_not_a_refusal(self, monkeypatch, caplog):
        monkeypatch.setattr(code_syntax.shutil, "which", lambda name: None)
        assert syntax_problem("let x = ;") is None
        assert "syntax check unavailable" in caplog.text

    def test_the_message_reads_as_a_sentence(self):
        assert str(SyntaxProblem("Unexpected token", 4, 2)) == (
            "Syntax error on line 4, column 2: Unexpected token.")
