#!/usr/bin/env bash
# The GPU check (issue 16): on a CUDA machine, install what is missing (the
# project's packages, then vLLM), build a small built-in policy (a Qwen3
# model, so vLLM can serve it), and run scripts/gpu_check.py: 3-step GRPO
# runs with transformers' generate, with vLLM colocated, and with 2
# processes (`accelerate launch`, 2 GPUs), printing their step times.
#
#     scripts/gpu_check.sh            # everything
#     STEPS=5 scripts/gpu_check.sh
#
# vLLM pins its own torch: installing it may replace requirements.txt's
# torch==2.13.0. If pip refuses, the error is printed and the vLLM check
# is refused at launch ("use_vllm needs the vllm package"); the others run.
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS="${STEPS:-3}"
POLICY="${GPU_CHECK_POLICY:-$PWD/.make/gpu-check-policy}"

make deps
if ! .venv/bin/python -c "import vllm" 2>/dev/null; then
    .venv/bin/pip install --quiet vllm || echo "gpu_check: pip could not install vllm (above)"
fi
if [ ! -f "$POLICY/config.json" ]; then
    # A quick build: the check measures the machinery, not the policy's taste.
    .venv/bin/python manage.py bootstrap_policy --out "$POLICY" --size tiny --steps 200 \
        --evaluate 0
fi
exec .venv/bin/python scripts/gpu_check.py --policy "$POLICY" --steps "$STEPS"
