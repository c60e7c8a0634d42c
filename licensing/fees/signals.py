"""What other apps may hear from the fee room, without it knowing them (licensing does not
import enforcement): ``fee_paid`` is sent inside the transaction that settles a DAM, so a
receiver's writes (e.g. the fine of an auto marked paid) commit or roll back with it."""

from django.dispatch import Signal

# sender=Fee, fee=<Fee, now paid>, actor=<who recorded it>
fee_paid = Signal()
