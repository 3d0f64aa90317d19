"""The small reward model: a taste score for a render, learnt from the grades.

    data.py       graded renders -> mean ordinal grade per render, pairs, a split by sketch
    features.py   PNG -> small RGB tensor, with a decode cache
    model.py      the scorers: a small CNN from scratch, or a head on a local backbone
    train.py      Bradley-Terry training with early stopping, progress and cancel hooks
    metrics.py    pairwise accuracy, per-grade score distributions, probability calibration
    scoring.py    batched scoring of renders into Render.taste_score
    simulated.py  the simulated curator (a fixed rule over painter metadata)
    disjoint.py   a yardstick's data: the grades another model never trained on
    job.py        one training job's steps: read grades, decode, fit, measure
    services.py   RewardModel jobs: create (a yardstick too), train, activate, cancel
    selectors.py  the active model, yardsticks, and the queue's "most informative first" order

Nothing here imports the pool's membership code, and only data.py, scoring.py,
simulated.py, disjoint.py, job.py, services.py and selectors.py touch the database: the rest
runs in benchmarks without one."""
