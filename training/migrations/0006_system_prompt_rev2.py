from django.db import migrations


def install(apps, schema_editor):
    """Revision 2 of the allow-list, for a database that ran 0004 before revision 2
    existed. 0004 calls this same installer, which installs every revision in
    presets.SYSTEM_PROMPTS, so on a new database the rows are already there and
    get_or_create leaves them alone."""
    from training.presets import training_presets_install

    training_presets_install(apps.get_model("training", "SystemPrompt"),
                             apps.get_model("training", "PromptSet"))


class Migration(migrations.Migration):
    dependencies = [("training", "0005_run_learning_rate_default")]
    operations = [migrations.RunPython(install, migrations.RunPython.noop)]
