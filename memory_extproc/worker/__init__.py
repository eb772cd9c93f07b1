"""The worker process: batches of turns become memories (extraction model or notes), usage
renewals and expiry pruning, off the processor's CPU."""
