"""The one reward path, used by GRPO runs, the replay lab, calibrations, the
prompt optimiser and the reward service alike: the signal kinds' registry
(kinds.py), rubrics (rubric.py), what a signal reads of a rollout
(inputs.py), scoring a batch (scoring.py), GRPO's advantages
(advantages.py) and the judges that answer the signals' questions
(judges/)."""
