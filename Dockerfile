# Attention Lab on a CPU server, with the shipped classroom config (.streamlit/config.toml).
#   docker build -t attention-lab .  &&  docker run -p 8501:8501 attention-lab
FROM python:3.11-slim

ENV PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

WORKDIR /app
COPY requirements.txt .
# PyTorch's CPU wheels: the default Linux wheel brings gigabytes of CUDA libraries a CPU server never loads.
RUN pip install --extra-index-url https://download.pytorch.org/whl/cpu -r requirements.txt

COPY app.py ./
COPY ui ui
COPY store store
COPY .streamlit .streamlit
COPY pages pages
COPY lessons lessons
COPY minimodels minimodels
COPY assets assets

RUN useradd --create-home --uid 1000 lab
USER lab

EXPOSE 8501
# Streamlit's own health endpoint; a proxy or orchestrator can use the same URL.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"
CMD ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]
