"""tilec.tools"""
