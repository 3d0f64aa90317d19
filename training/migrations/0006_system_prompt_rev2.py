from django.db import migrations


def install(apps, schema_editor):
    """Adds the allow-list's revision 2 (rows already there are left alone)."""
    from training.presets import training_presets_install

    training_presets_install(apps.get_model("training", "SystemPrompt"),
                             apps.get_model("training", "PromptSet"))


class Migration(migrations.Migration):
    dependencies = [("training", "0005_run_learning_rate_default")]
    operations = [migrations.RunPython(install, migrations.RunPython.noop)]
