"""verify: real httpd and real nginx side by side on loopback, compared request by request."""
