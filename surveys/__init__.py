"""Surveys: questions, invitations, submissions, respondent and researcher pages, API v1."""
