"""The fixed evaluation probe (issue 19): "is it learning" asked of the same
prompts at the same seeds every few steps, scored by a yardstick against the
same pool references.

The reward curve answers a different question: each step draws its own
prompts, and its score comes from the judge the policy optimises, so a policy
that learns the judge's quirks looks like one that learns to paint. The probe
holds the prompts, seeds and references fixed, and scores with a yardstick:
a reward model trained on grades disjoint from the judge's training split
(pool.reward.disjoint), the curators' taste on pictures the judge never fitted.

    plan.py        at launch: what a probe needs, and what it will do (launched_config)
    samples.py     on the worker: sample, render, score and store one probe
    callback.py    when: step 0 and every probe_every steps, on the main process
    selectors.py   reads for the pages
    presenters.py  the run page's chart and film strips, the compare page's curve
"""
