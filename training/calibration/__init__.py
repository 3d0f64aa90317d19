"""Reference calibration: how often a policy beats each member of a pool
snapshot (pool.band holds the rules): the launch (services, forms,
views), the job on the train worker (job), and the measurement (measure)."""
