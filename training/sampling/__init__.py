"""Sampling a policy, for every job that does: a run's rollouts and its
probe (training.runs), a prompt optimisation's candidates
(training.optimiser), a calibration's rollouts (training.calibration).

config.py    the sampling settings, defined once (SamplingConfig)
conf.py      the deployment's settings samplers read (threads, where renders go)
device.py    which device, the policy loaded on it, its memory given back
samples.py   completions of prompts at fixed seeds, the RNG left as found
renderers.py where the completions render: the worker's browsers or the fleet
outcomes.py  what the renders say: gate passes, hallucinated brush methods
launch.py    what a sampling job checks and records at launch

These import nothing of the jobs that use them, so the jobs may import them
and each other's results without a circle.
"""
