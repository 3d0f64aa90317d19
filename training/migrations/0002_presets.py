from django.db import migrations


def install(apps, schema_editor):
    from training.presets import presets_install

    presets_install(apps.get_model("training", "Rubric"), apps.get_model("training", "Judge"))


class Migration(migrations.Migration):
    dependencies = [("training", "0001_rubrics_judges_replays")]
    operations = [migrations.RunPython(install, migrations.RunPython.noop)]
