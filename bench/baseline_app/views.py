"""The baseline: the most ordinary DRF create endpoint there is (ModelSerializer + CreateAPIView).

Anonymous like the submission endpoint (no authentication, no CSRF), JSON in and out.
"""

from __future__ import annotations

from rest_framework import generics, serializers
from rest_framework.permissions import AllowAny

from bench.baseline_app.models import BaselineRow


class BaselineRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = BaselineRow
        fields = ["id", "note", "created_on"]


class BaselineCreateView(generics.CreateAPIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    serializer_class = BaselineRowSerializer
    queryset = BaselineRow.objects.all()
