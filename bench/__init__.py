"""`make bench`: what memory adds to a request, measured side by side through the real stack."""
