"""tilec.runtime"""
