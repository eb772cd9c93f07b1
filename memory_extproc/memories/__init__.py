"""The one home of memory writes: dedup, reconciliation (the truth rules), facts, retention."""
