"""apache2nginx: migrate Apache httpd configurations to nginx, reporting every divergence."""
__version__ = "0.1.0"
