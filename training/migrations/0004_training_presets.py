from django.db import migrations


def install(apps, schema_editor):
    from training.presets import training_presets_install

    training_presets_install(apps.get_model("training", "SystemPrompt"),
                             apps.get_model("training", "PromptSet"))


class Migration(migrations.Migration):
    dependencies = [("training", "0003_training_runs")]
    operations = [migrations.RunPython(install, migrations.RunPython.noop)]
