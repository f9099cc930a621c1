"""Extraction prompts and their JSON schemas, shipped as package data."""
