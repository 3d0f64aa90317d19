"""The training app in the admin, one module per thing: rubrics and judges,
replays, system prompts and prompt sets, system prompt optimisations,
policy builds, training runs (and, beside them, the run verbs: launch,
cancel, resume and clone as actions and buttons).
Importing the modules registers their admins."""
from . import external, optimiser, policy, prompts, replays, rubrics, runs  # noqa: F401
