"""The engines' own interfaces to the reward service (docs/external-
trainers.md): a TRL reward function (trl_reward.py), a verl `compute_score`
(verl_reward.py) and an OpenRLHF remote reward model (openrlhf_rm.py), over one
client (client.py). They import the standard library and this folder
only (no Django, nothing else of paintrl), so they run in the trainer's
environment with this repository on its PYTHONPATH. Their imports are
absolute: verl loads its reward function from a file path, outside any
package."""
