"""tilec.dialects"""
