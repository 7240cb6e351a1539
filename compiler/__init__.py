"""tilec.compiler"""
