# Calibrations move to the training app (training.models.Calibration), where
# they can point at the run whose policy they measured. The tables stay
# where they are (the training models name them by db_table): this removes
# the models from the pool app's state only, and training 0017 adds them to
# the training app's.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('pool', '0004_calibration'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='MemberWinRate'),
                migrations.DeleteModel(name='Calibration'),
            ],
            database_operations=[],
        ),
    ]
