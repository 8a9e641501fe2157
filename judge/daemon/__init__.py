"""The mail daemon: IMAP in, SMTP out, deadlines, around the synchronous game service.

Modules, in the spirit of Mailman 3's runners and queues:

- ``config``    TOML configuration, secrets from the environment or a file
- ``service``   the game service on one dedicated thread (SQLite is thread-bound)
- ``state``     the daemon's own small SQLite file: SMTP send journal, receipts, IMAP contact
- ``imap_in``   the IMAP runner: fetch unseen mail, hand it to the service, flag it afterwards
- ``smtp_out``  the SMTP runner: drain the service's outbox, one fresh connection per batch
- ``scheduler`` the deadline runner: ``run_due`` at ``next_wakeup``
- ``notices``   the masters and the admin told of troubles (straight through SMTP when the store is down)
- ``runner``    wires the runners into one event loop, signals, clean shutdown
- ``logs``      structured (JSON-lines) logging
"""
