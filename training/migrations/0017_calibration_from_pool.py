# Calibrations come here from the pool app (pool 0005), their tables kept
# (db_table), and gain real foreign keys: `run`, the run whose policy one
# measured, and `step`, a re-calibration's step. Both were kept in the JSON
# config ("run", "step"; a job's policy["run"]) because the pool could not
# point at a run; they are copied into the columns and leave the config.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def config_to_columns(apps, schema_editor):
    Calibration = apps.get_model("training", "Calibration")
    runs = set(apps.get_model("training", "TrainingRun").objects.values_list("pk", flat=True))
    for calibration in Calibration.objects.all():
        config = dict(calibration.config or {})
        run = config.pop("run", None) or (config.get("policy") or {}).get("run")
        step = config.pop("step", None)
        calibration.run_id = run if run in runs else None
        calibration.step = step
        calibration.config = config
        calibration.save(update_fields=["run", "step", "config"])


def columns_to_config(apps, schema_editor):
    Calibration = apps.get_model("training", "Calibration")
    for calibration in Calibration.objects.exclude(step=None):
        calibration.config = {**calibration.config, "run": calibration.run_id,
                              "step": calibration.step}
        calibration.save(update_fields=["config"])


class Migration(migrations.Migration):

    dependencies = [
        ('pool', '0005_calibration_to_training'),
        ('training', '0016_sampling_settings'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Calibration',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], db_index=True, default='queued', max_length=10)),
                        ('cancel_requested', models.BooleanField(default=False, help_text='Asked to stop: the worker stops at its next boundary.')),
                        ('progress', models.JSONField(blank=True, default=dict, help_text='Where the job has got to: its stage and counts.')),
                        ('error', models.TextField(blank=True, help_text='Why the job failed.')),
                        ('created', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('started', models.DateTimeField(blank=True, help_text='When a worker first took it.', null=True)),
                        ('finished', models.DateTimeField(blank=True, null=True)),
                        ('config', models.JSONField(blank=True, default=dict, help_text="The policy, judge, prompts and sampling it measured with; a run's re-calibration also its band and the references it kept.")),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('snapshot', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='calibrations', to='pool.poolsnapshot')),
                    ],
                    options={
                        'verbose_name': 'reference calibration',
                        'db_table': 'pool_calibration',
                        'ordering': ['-created'],
                        'abstract': False,
                    },
                ),
                migrations.CreateModel(
                    name='MemberWinRate',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('asked', models.PositiveIntegerField(help_text='Comparisons asked of the judge.')),
                        ('answered', models.PositiveIntegerField(help_text='Comparisons the judge answered.')),
                        ('wins', models.FloatField(help_text="The rollouts' summed win probability.")),
                        ('win_rate', models.FloatField(help_text='How often the policy beats this member: wins / answered; None when the judge answered nothing.', null=True)),
                        ('calibration', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='win_rates', to='training.calibration')),
                        ('member', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='win_rates', to='pool.poolmember')),
                    ],
                    options={
                        'db_table': 'pool_memberwinrate',
                        'ordering': ['calibration', 'member'],
                        'constraints': [models.UniqueConstraint(fields=('calibration', 'member'), name='win_rate_once_per_member')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.AddField(
            model_name='calibration',
            name='run',
            field=models.ForeignKey(blank=True, help_text='The run whose policy it measured: a re-calibration\'s, or the run whose trained policy a job sampled.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='calibrations', to='training.trainingrun'),
        ),
        migrations.AddField(
            model_name='calibration',
            name='step',
            field=models.PositiveIntegerField(blank=True, help_text="A run's re-calibration: the step whose rollouts it measured.", null=True),
        ),
        migrations.RunPython(config_to_columns, columns_to_config),
    ]
