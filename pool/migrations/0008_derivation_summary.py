"""A calibrated snapshot's derivation carries its own sentence (`summary`,
written by training.calibration.services.derivation_summary), so the pool's
page shows it without knowing what a calibration is. Snapshots derived
before get theirs here, in the words the page used for them."""
from django.db import migrations


def summaries_write(apps, schema_editor):
    PoolSnapshot = apps.get_model("pool", "PoolSnapshot")
    for snapshot in PoolSnapshot.objects.exclude(derived_from=None):
        derivation = dict(snapshot.derivation or {})
        if "summary" in derivation or not derivation.get("calibration") or not derivation.get("band"):
            continue
        low, high = derivation.get("band") or [None, None]
        policy = (derivation.get("policy") or {}).get("label") or "the policy"
        judge = (derivation.get("judge") or {}).get("name") or "its judge"
        derivation["summary"] = (f"that {policy} beat from {low:g} to {high:g} of the time, "
                                 f"judged by {judge} (calibration {derivation['calibration']})")
        PoolSnapshot.objects.filter(pk=snapshot.pk).update(derivation=derivation)


class Migration(migrations.Migration):

    dependencies = [
        ('pool', '0007_reward_model_role'),
    ]

    operations = [
        migrations.RunPython(summaries_write, migrations.RunPython.noop),
    ]
