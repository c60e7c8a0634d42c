"""portal's pages get the domain's data through portal.registry: every slot is provided."""

from portal import registry


def test_every_slot_has_a_provider_and_every_job_a_label():
    slots = [v for k, v in vars(registry).items() if k.isupper() and isinstance(v, str)]
    assert slots and all(registry.has(s) for s in slots), [s for s in slots if not registry.has(s)]
    assert len(registry.verification_lookups()) >= 2  # grants and autos
    names = [j.name for j in registry.jobs()]
    assert names[:4] == ["licensing.expire_grants", "licensing.renewal_reminders", "licensing.vehicle_age",
                         "licensing.quota_check"] and names[-1] == "drain_outbox"
