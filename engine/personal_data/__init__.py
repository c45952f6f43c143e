"""Personal data in the log: values sealed with a key per data subject and instance (AES-256-GCM),
opened again when the log is read, and erased by destroying the key (crypto-shredding).

Must not: put a key in the log, or decide what is personal (core.personal_data decides).
"""
