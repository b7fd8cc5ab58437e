"""Skillboard's background work: the jobs table (watermarks, checkpoints, markers, leases) and
the scheduler that runs the periodic commands of the SCHEDULE setting (`run_schedule`)."""
