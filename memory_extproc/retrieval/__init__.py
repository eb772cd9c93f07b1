"""Request path: decide whether memory can help, build the query, search, format the context."""
