"""The built-in policy: its corpus, tokenizer, SFT loop, saved folder and the
bootstrap_policy command (test size, seconds each; no renders); and the
canned policy tests sample for gate passes (its replies rendered)."""
from __future__ import annotations

import json
import re

import pytest
from django.core.management import CommandError, call_command

from sketches.code_text import extract_code, strip_comments_and_strings
from sketches.gate import static_violations
from sketches.painter import paint
from training.policy import policy_load
from training.policy.build import (
    POLICY_RECORD,
    logits_scale,
    model_build,
    policy_bootstrap,
    policy_record,
    tokenizer_train,
)
from training.policy.chat import chat_render
from training.policy.corpus import (
    chat_texts,
    code_compact,
    completion_ids,
    corpus_examples,
    corpus_stats,
    prompt_ids,
    within_budget,
)
from training.policy.sample import completions_sample
from training.policy.sft import SftConfig, _collate, reply_loss, sft_encode, sft_train
from training.presets import SYSTEM_PROMPT


@pytest.fixture(scope="module")
def corpus():
    """36 painter sketches (every subject three times) and a tokenizer fitted
    to 300 (a few seconds; the tiny recipe fits 3,000)."""
    examples = corpus_examples(300)
    tokenizer = tokenizer_train(chat_texts(examples, SYSTEM_PROMPT), vocab_size=4096)
    return examples[:36], tokenizer


class TestCodeCompact:
    def test_comments_go_strings_stay(self):
        code = ('// header\nconst URL = "http://x.org/a"; // trailing\n/* block\n comment */\n'
                "const S = 'it\\'s // not a comment';\n\n\n\nfunction setup() {}\n")
        assert code_compact(code) == (
            'const URL = "http://x.org/a";\n'
            "const S = 'it\\'s // not a comment';\n\nfunction setup() {}\n")

    def test_painter_code_keeps_everything_but_comments(self, corpus):
        def bare(code: str) -> str:
            return "".join(strip_comments_and_strings(code)[0].split())

        for example in corpus[0]:
            original = paint(example.meta["seed"]).code
            compact = extract_code(example.completion)
            assert "//" not in compact
            assert bare(compact) == bare(original)


class TestCorpus:
    def test_every_tier_and_subject_is_present(self, corpus):
        stats = corpus_stats(corpus[0])
        assert set(stats["tiers"]) == {"good", "fair", "bad"}
        assert len(stats["subjects"]) == 12

    def test_examples_pass_the_static_gate(self, corpus):
        for example in corpus[0]:
            assert example.completion.startswith("```javascript\n")
            assert example.completion.endswith("\n```")
            assert static_violations(extract_code(example.completion)) == {}

    def test_the_system_prompt_allows_what_the_corpus_calls(self, corpus):
        # The policy learns from the painter; a prompt that leaves out a method
        # the painter uses would call every such sketch off-list.
        called = {name for example in corpus[0]
                  for name in re.findall(r"brush\.(\w+)\(", example.completion)}
        allowed = set(re.findall(r"brush\.(\w+)\(", SYSTEM_PROMPT))
        assert called - {"addField"} <= allowed, called - allowed
        assert "draw() calls noLoop()" in SYSTEM_PROMPT.replace("\n", " ")

    def test_chat_template_round_trip(self, corpus):
        examples, tokenizer = corpus
        example = examples[0]
        messages = example.messages(SYSTEM_PROMPT)
        text = tokenizer.apply_chat_template(messages, tokenize=False)
        assert text == chat_render(messages)
        # Prompt and reply are tokenized apart (as GRPO does: prompt ids, then
        # generated ids), and together they spell the chat template's text.
        prompt = prompt_ids(tokenizer, SYSTEM_PROMPT, example.prompt)
        reply = completion_ids(tokenizer, example.completion)
        assert tokenizer.decode(prompt) == chat_render(messages[:2], add_generation_prompt=True)
        assert tokenizer.decode(prompt + reply) + "\n" == text
        assert reply[-1] == tokenizer.eos_token_id
        assert tokenizer.decode(reply[:-1]) == example.completion

    def test_completions_fit_the_token_budget(self, corpus):
        examples, tokenizer = corpus
        assert within_budget(examples, tokenizer, 512) == examples
        stats = corpus_stats(examples, tokenizer)["completion_tokens"]
        assert stats["max"] <= 512 and stats["median"] <= 450


class TestSft:
    def test_a_few_steps_reduce_the_loss(self, corpus):
        examples, tokenizer = corpus
        model = model_build(tokenizer, size="test")
        config = SftConfig(max_steps=30, batch_size=4, learning_rate=3e-3, warmup_steps=3,
                           threads=1, log_every=5)
        seen = []
        record = sft_train(model, tokenizer, examples[:8], system=SYSTEM_PROMPT, config=config,
                           on_progress=seen.append)
        assert record["steps"] == 30
        assert [p.step for p in seen] == [5, 10, 15, 20, 25, 30]
        assert record["final_loss"] < record["first_loss"] - 1.0

    def test_the_reply_loss_is_the_models_own_loss(self, corpus):
        """Logits only where a label is: the value and the gradients of the
        transformers loss over the whole padded batch."""
        import torch

        examples, tokenizer = corpus
        model = model_build(tokenizer, size="test")
        batch = _collate(sft_encode(tokenizer, examples[:4], SYSTEM_PROMPT),
                         tokenizer.pad_token_id)
        ids, labels, mask = batch
        assert (labels[:, 1:] == -100).sum() > ids.shape[0] * 10  # prompts and padding
        ours = reply_loss(model, ids, labels, mask)
        ours.backward()
        ours_grad = model.get_decoder().layers[0].mlp.up_proj.weight.grad.clone()
        model.zero_grad()
        theirs = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        theirs.backward()
        assert torch.allclose(ours, theirs, atol=1e-5)
        assert torch.allclose(ours_grad, model.get_decoder().layers[0].mlp.up_proj.weight.grad,
                              atol=1e-6)

    def test_logit_scale_sharpens_every_logit(self, corpus):
        import torch

        _, tokenizer = corpus
        model = model_build(tokenizer, size="test").eval()
        ids = torch.tensor([[5, 9, 12, 40]])
        with torch.no_grad():
            before = model(input_ids=ids).logits
            logits_scale(model, 1.25)
            after = model(input_ids=ids).logits
        assert torch.allclose(after, before * 1.25, atol=1e-4)

    def test_config_needs_a_length(self):
        with pytest.raises(ValueError, match="max_steps or minutes"):
            SftConfig()


class TestSavedPolicy:
    def test_tokenizer_splits_text_as_trained_after_loading(self, corpus, tmp_path):
        # transformers rebuilds the tokenizer of some model types (qwen2) with
        # their own pre-tokenizer; ours must come back exactly as trained.
        examples, tokenizer = corpus
        model_build(tokenizer, size="test").save_pretrained(tmp_path)
        tokenizer.save_pretrained(tmp_path)
        _, loaded = policy_load(tmp_path)
        for example in examples[:6]:
            assert (completion_ids(loaded, example.completion)
                    == completion_ids(tokenizer, example.completion))
            assert (prompt_ids(loaded, SYSTEM_PROMPT, example.prompt)
                    == prompt_ids(tokenizer, SYSTEM_PROMPT, example.prompt))

    def test_loads_and_writes_text(self, test_policy):
        model, tokenizer = policy_load(test_policy)
        [completion] = completions_sample(model, tokenizer, ["a red poppy in watercolour"],
                                          system=SYSTEM_PROMPT, max_new_tokens=24)
        assert 0 < completion.tokens <= 24 and completion.text
        # Cut off at the budget unless it ended itself; the same seed, the same reply.
        assert completion.finished or completion.tokens == 24
        assert completions_sample(model, tokenizer, ["a red poppy in watercolour"],
                                  system=SYSTEM_PROMPT, max_new_tokens=24) == [completion]

    def test_records_what_it_learnt_from(self, test_policy):
        record = json.loads((test_policy / POLICY_RECORD).read_text())
        assert record["size"] == "test"
        assert record["corpus"]["examples"] > 0
        assert record["training"]["final_loss"] < record["training"]["first_loss"]
        assert not list(test_policy.parent.glob(".*partial*"))
        assert policy_record(test_policy) == record

    def test_a_missing_or_unreadable_record_reads_as_empty(self, tmp_path):
        assert policy_record(tmp_path) == {}  # a checkpoint built elsewhere has none
        (tmp_path / POLICY_RECORD).write_text("{cut short")
        assert policy_record(tmp_path) == {}


@pytest.mark.training
@pytest.mark.django_db
class TestCommand:
    ARGS = {"size": "test", "steps": 3, "count": 24, "evaluate": 2}

    def test_writes_a_policy_and_refuses_to_overwrite(self, tmp_path):
        out = tmp_path / "policy"
        call_command("bootstrap_policy", out=str(out), **self.ARGS)
        record = json.loads((out / POLICY_RECORD).read_text())
        evaluation = record["evaluation"]
        assert evaluation["samples"] == 2
        assert 0 <= evaluation["static_pass"] <= 1
        # The pass share is the static gate's verdict on the very replies sampled
        # (both among the examples kept): recomputed here from their text.
        passed = [code is not None and not static_violations(code)
                  for code in map(extract_code, evaluation["examples"])]
        assert len(passed) == 2
        assert [not sample["static"] for sample in evaluation["per_sample"]] == passed
        assert evaluation["static_pass"] == sum(passed) / 2
        with pytest.raises(CommandError, match="already exists"):
            call_command("bootstrap_policy", out=str(out), **self.ARGS)
        call_command("bootstrap_policy", out=str(out), force=True, seed=1, **self.ARGS)
        assert json.loads((out / POLICY_RECORD).read_text())["corpus"]["painter_seeds"] == [1, 24]
        # The policy alone (its builds are rows); no staging left.
        assert sorted(p.name for p in tmp_path.iterdir()) == ["policy"]

    def test_never_replaces_a_folder_that_is_not_a_policy(self, tmp_path):
        (tmp_path / "notes.txt").write_text("mine")
        with pytest.raises(CommandError, match="not a policy folder"):
            call_command("bootstrap_policy", out=str(tmp_path), force=True, **self.ARGS)
        assert (tmp_path / "notes.txt").read_text() == "mine"

    def test_bad_arguments_are_clear(self, tmp_path):
        with pytest.raises(CommandError, match="--count"):
            call_command("bootstrap_policy", out=str(tmp_path / "p"), size="test", count=0)


def test_bootstrap_without_force_keeps_the_old_policy(tmp_path, test_policy):
    before = (test_policy / "model.safetensors").read_bytes()
    with pytest.raises(FileExistsError):
        policy_bootstrap(test_policy, size="test", count=12,
                         sft=SftConfig(max_steps=1, threads=1), evaluate=0)
    assert (test_policy / "model.safetensors").read_bytes() == before


class TestCannedPolicy:
    def test_it_writes_only_its_replies_each_one_token_then_eos(self, canned_policy):  # noqa: F811
        from training.policy.canned import canned_replies
        from training.sampling.config import SamplingConfig
        from training.sampling.samples import Sampling, samples_generate

        model, tokenizer = policy_load(canned_policy)
        replies = canned_replies()
        samples = samples_generate(model, tokenizer, Sampling(
            prompts=["a red barn at dusk", "the sea"], samples=8, seeds=[3, 4],
            system=SYSTEM_PROMPT, config=SamplingConfig(
                max_completion_length=16, temperature=1.0, chat_template_kwargs={})))
        assert all(s.text in replies and s.tokens == 2 for s in samples)
        # The replies are equally likely: a group's rollouts are not all one sketch.
        assert len({s.text for s in samples}) > 1

    def test_each_reply_passes_the_gate_when_rendered(self, browser_pool):
        from sketches.rendering import OK, render_text
        from training.policy.canned import canned_replies

        for reply in canned_replies():
            outcome = render_text(browser_pool, reply, seed=0)
            assert outcome.status == OK, outcome.violations
