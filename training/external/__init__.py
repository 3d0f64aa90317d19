"""The reward as a service: external runs (training.models.external) scored
batch by batch for trainers that are not ours (services.py), and the
adapters that speak each engine's own interface (adapters/)."""
