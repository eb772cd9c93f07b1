"""The processor's side of learning: count turns, cut batches, keep them in the spool, feed and
supervise the worker process."""
