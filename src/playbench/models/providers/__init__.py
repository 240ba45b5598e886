"""Model providers: each turns neutral messages into one wire format and parses the answer."""
