"""Response path: turn conversations into consistent memories, off the request path."""
