#!/usr/bin/env python3
"""Precision of `patchkit check` errors on large public codebases it was never tuned on.

    python3 bench/analyzer_precision.py --seed 16 --sample 25 --patchkit-path /work/main

Each codebase is a pinned release from the package registry (`pip download --no-deps`, unpacked
into a cache outside the repo). patchkit runs with `--fail-on error`; only error findings count.
Errors are grouped (one group = class + attribute + code), `--sample` groups per codebase are
drawn with `random.Random(seed)` from the sorted group list, and a labelling sheet is written to
bench/results/analyzer-precision-<codebase>.md with, for each sampled group, the code around the
read and around the class's `__init__`.

Labels are read by hand and kept in bench/results/analyzer-precision-labels.json.xz, keyed by
codebase and group (`Class.attr:CODE`), so a re-run with another checkout re-uses the labels of
groups it samples again and leaves the new ones marked `unlabelled`:

    {"transformers": {"Foo.bar:PK001": {"label": "fp", "family": "hasattr-guard", "reason": "..."}}}

label is one of: real (reachable bug), latent (bug on a path no caller takes today), fp.
precision = (real + latent) / labelled. Totals go to bench/results/analyzer-precision.json.gz/.md.
"""
import argparse
import ast
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _patchkit_run import ROOT, analyzer_key, patchkit_commit, run_patchkit  # noqa: E402
from _releases import fetch_release  # noqa: E402

CODEBASES = {  # name -> (requirement, package folder inside the unpacked release)
    "transformers": ("transformers==5.24.0", "transformers"),
    "vllm": ("vllm==0.33.0", "vllm"),
    "diffusers": ("diffusers==0.42.1", "diffusers"),
    "deepspeed": ("deepspeed==0.19.8", "deepspeed"),
    "ray": ("ray==2.49.0", "ray"),
    # never looked at while the analyzer's precision rules were written (measured once, at the end)
    "timm": ("timm==1.0.31", "timm"),
    "keras": ("keras==3.12.0", "keras"),
    # not looked at before the final commit was measured on them
    "peft": ("peft==0.21.2", "peft"),
    "datasets": ("datasets==5.2.0", "datasets"),
    "mmdet": ("mmdet==3.3.0", "mmdet"),
    "nemo": ("nemo_toolkit==3.0.0", "nemo"),
    # session 6: never looked at before this measurement (picked for their size and class count)
    "monai": ("monai==1.6.1", "monai"),
    "speechbrain": ("speechbrain==1.1.2", "speechbrain"),
    "espnet": ("espnet==202511", "espnet2"),
    "kornia": ("kornia==0.9.0", "kornia"),
    "pyro": ("pyro-ppl==1.9.2", "pyro"),
    "lightning": ("lightning==2.6.6", "lightning"),
    "flax": ("flax==0.12.8", "flax"),
    "sympy": ("sympy==1.14.0", "sympy"),
    "django": ("django==5.2.19", "django"),
    "matplotlib": ("matplotlib==3.11.2", "matplotlib"),
    "twisted": ("twisted==26.10.0", "twisted"),
    "sqlalchemy": ("sqlalchemy==2.1.9", "sqlalchemy"),
    "nltk": ("nltk==3.10.4", "nltk"),
    "sphinx": ("sphinx==9.0.4", "sphinx"),
    "ansible": ("ansible-core==2.19.14", "ansible"),
    # session 6, second set: never looked at before the analyzer fixes of that session were measured
    "sklearn": ("scikit-learn==1.9.1", "sklearn"),
    "pandas": ("pandas==3.1.1", "pandas"),
    "networkx": ("networkx==3.6.1", "networkx"),
    "astropy": ("astropy==8.0.2", "astropy"),
    "statsmodels": ("statsmodels==0.15.0", "statsmodels"),
    "dask": ("dask==2026.8.0", "dask"),
    "celery": ("celery==5.7.0", "celery"),
    "tornado": ("tornado==6.6.1", "tornado"),
    # session 6, third set: never looked at, measured on the session's final analyzer
    "xarray": ("xarray==2026.9.0", "xarray"),
    "scrapy": ("scrapy==2.19.0", "scrapy"),
    "pylint": ("pylint==4.1.4", "pylint"),
    "bokeh": ("bokeh==3.9.2", "bokeh"),
    "numba": ("numba==0.68.1", "numba"),
    "mlflow": ("mlflow==3.18.0", "mlflow"),
    # session 7: never looked at before this measurement (4 ML libraries, 2 general-purpose)
    "trl": ("trl==1.16.0", "trl"),
    "ignite": ("pytorch-ignite==0.5.5", "ignite"),
    "captum": ("captum==0.9.0", "captum"),
    "botorch": ("botorch==0.18.1", "botorch"),
    "ipython": ("ipython==9.18.1", "IPython"),
    "jedi": ("jedi==0.20.1", "jedi"),
    "gluonts": ("gluonts==0.17.0", "gluonts"),
    "pymc": ("pymc==5.28.5", "pymc"),
    "salt": ("salt==3008.5", "salt"),
    "aiohttp": ("aiohttp==3.14.5", "aiohttp"),
    # session 8 (set E, seed 34): never looked at before this measurement (4 ML libraries, 4 general-purpose)
    "torchmetrics": ("torchmetrics==1.9.0", "torchmetrics"),
    "optuna": ("optuna==5.0.0", "optuna"),
    "gymnasium": ("gymnasium==1.4.0", "gymnasium"),
    "sb3": ("stable-baselines3==2.9.2", "stable_baselines3"),
    "sbert": ("sentence-transformers==6.2.0", "sentence_transformers"),
    "textual": ("textual==8.2.8", "textual"),
    "paramiko": ("paramiko==5.1.0", "paramiko"),
    "distributed": ("distributed==2026.8.0", "distributed"),
    # set E, second half (the first eight gave 6 error groups in all): larger class-heavy codebases
    "pyg": ("torch-geometric==2.8.1", "torch_geometric"),
    "fairseq": ("fairseq==0.12.2", "fairseq"),
    "langchain": ("langchain-core==1.8.4", "langchain_core"),
    "llamaindex": ("llama-index-core==0.14.25", "llama_index"),
    "mypy": ("mypy==2.4.1", "mypy"),
    "docutils": ("docutils==0.23", "docutils"),
    "kombu": ("kombu==5.7.0", "kombu"),
    "haystack": ("haystack-ai==3.4.1", "haystack"),
    # set F (seed 35): never looked at, measured after set E's fixes
    "ultralytics": ("ultralytics==8.4.190", "ultralytics"),
    "fastai": ("fastai==2.8.12", "fastai"),
    "flair": ("flair==0.15.1", "flair"),
    "allennlp": ("allennlp==2.10.1", "allennlp"),
    "mmengine": ("mmengine==0.10.7", "mmengine"),
    "pyspark": ("pyspark==4.3.0", "pyspark"),
    "prefect": ("prefect==3.9.1", "prefect"),
    "deepchem": ("deepchem==2.8.0", "deepchem"),
    # set G (seed 36): never looked at, measured after set F's fixes
    "sktime": ("sktime==1.2.0", "sktime"),
    "darts": ("darts==0.48.1", "darts"),
    "gpytorch": ("gpytorch==1.15.2", "gpytorch"),
    "numpyro": ("numpyro==0.22.0", "numpyro"),
    "stanza": ("stanza==1.15.0", "stanza"),
    "gensim": ("gensim==4.4.0", "gensim"),
    "pytest": ("pytest==9.2.0", "_pytest"),
    "sqlglot": ("sqlglot==30.30.0", "sqlglot"),
    "spacy": ("spacy==3.8.18", "spacy"),
    "tianshou": ("tianshou==2.0.1", "tianshou"),
    # set H (seed 37, session 9): measured once, before any rule was written for them
    "jax": ("jax==0.10.2", "jax"),
    "optax": ("optax==0.2.8", "optax"),
    "equinox": ("equinox==0.13.8", "equinox"),
    "skimage": ("scikit-image==0.26.0", "skimage"),
    "kedro": ("kedro==1.7.0", "kedro"),
    "dagster": ("dagster==1.13.29", "dagster"),
    "starlette": ("starlette==1.10.0", "starlette"),
    "marshmallow": ("marshmallow==4.4.0", "marshmallow"),
    "biopython": ("biopython==1.88", "Bio"),
    "litellm": ("litellm==1.110.2", "litellm"),
    # set I (seed 38, session 10): measured once, before any rule was written for them
    "mne": ("mne==1.13.2", "mne"),
    "holoviews": ("holoviews==1.23.2", "holoviews"),
    "panel": ("panel==1.9.4", "panel"),
    "hypothesis": ("hypothesis==6.170.17", "hypothesis"),
    "pygments": ("pygments==2.21.0", "pygments"),
    "accelerate": ("accelerate==1.15.0", "accelerate"),
    "shap": ("shap==0.51.0", "shap"),
    "pint": ("pint==0.25.3", "pint"),
    "trio": ("trio==0.35.0", "trio"),
    "werkzeug": ("werkzeug==3.1.9", "werkzeug"),
    # set I, second half (the first ten gave 15 error groups in all): larger class-heavy codebases
    "torchrl": ("torchrl==0.14.1", "torchrl"),
    "tensordict": ("tensordict==0.15.3", "tensordict"),
    "gradio": ("gradio==6.31.0", "gradio"),
    "pydantic": ("pydantic==2.14.4", "pydantic"),
    "scipy": ("scipy==1.17.1", "scipy"),
    "streamlit": ("streamlit==1.67.0", "streamlit"),
    # set J (seed 39, session 10): measured once, after set I's rules, before any rule for them
    "xgboost": ("xgboost==3.2.0", "xgboost"),
    "lightgbm": ("lightgbm==4.7.0", "lightgbm"),
    "albumentations": ("albumentations==2.0.8", "albumentations"),
    "evaluate": ("evaluate==0.4.6", "evaluate"),
    "lm_eval": ("lm_eval==0.4.13", "lm_eval"),
    "optimum": ("optimum==2.3.0", "optimum"),
    "rich": ("rich==15.0.0", "rich"),
    "flask": ("flask==3.1.3", "flask"),
    "jinja2": ("jinja2==3.1.6", "jinja2"),
    "black": ("black==26.10.1", "black"),
    "seaborn": ("seaborn==0.13.2", "seaborn"),
    "pml": ("pytorch-metric-learning==2.9.0", "pytorch_metric_learning"),
    "nni": ("nni==3.0", "nni"),
    # set K (seed 40, session 10): measured once, after set J's rules, before any rule for them
    "music21": ("music21==10.5.1", "music21"),
    "luigi": ("luigi==3.8.1", "luigi"),
    "pymongo": ("pymongo==4.20.1", "pymongo"),
    "fsspec": ("fsspec==2026.9.0", "fsspec"),
    "zarr": ("zarr==3.1.6", "zarr"),
    "simpy": ("simpy==4.1.2", "simpy"),
    "mesa": ("mesa==3.3.1", "mesa"),
    "pettingzoo": ("pettingzoo==1.27.0", "pettingzoo"),
    "skorch": ("skorch==1.4.0", "skorch"),
    "pytorch_forecasting": ("pytorch-forecasting==1.8.0", "pytorch_forecasting"),
    "open_clip": ("open_clip_torch==3.3.0", "open_clip"),
    "smp": ("segmentation-models-pytorch==0.6.0", "segmentation_models_pytorch"),
    # set K, second half (the first twelve gave 7 error groups in all): larger class-heavy codebases
    "sentry": ("sentry-sdk==2.75.0", "sentry_sdk"),
    "pyqtgraph": ("pyqtgraph==0.14.0", "pyqtgraph"),
    "pytensor": ("pytensor==3.0.7", "pytensor"),
    "cvxpy": ("cvxpy==1.9.3", "cvxpy"),
    "pennylane": ("pennylane==0.45.1", "pennylane"),
    "cirq": ("cirq-core==1.7.0", "cirq"),
    "tfp": ("tensorflow-probability==0.25.0", "tensorflow_probability"),
    # set L (seed 41, session 11): measured once on the session's final analyzer, before any rule for them
    "pyomo": ("pyomo==6.10.1", "pyomo"),
    "pyvista": ("pyvista==0.49.1", "pyvista"),
    "manim": ("manim==0.22.0", "manim"),
    "dvc": ("dvc==3.67.1", "dvc"),
    "hydra": ("hydra-core==1.3.8", "hydra"),
    "great_expectations": ("great-expectations==1.24.1", "great_expectations"),
    "imblearn": ("imbalanced-learn==0.14.2", "imblearn"),
    "mlxtend": ("mlxtend==0.25.0", "mlxtend"),
    "lightly": ("lightly==1.6.0", "lightly"),
    "pandera": ("pandera==0.35.0", "pandera"),
    "trimesh": ("trimesh==5.2.0", "trimesh"),
    "featuretools": ("featuretools==1.31.0", "featuretools"),
    "avalanche": ("avalanche-lib==0.6.0", "avalanche"),
    # set M (session 12, seed 42)
    "qiskit": ("qiskit==2.6.2", "qiskit"),
    "napari": ("napari==0.9.2", "napari"),
    "pymatgen": ("pymatgen==2026.10.24", "pymatgen"),
    "mdanalysis": ("MDAnalysis==2.11.0", "MDAnalysis"),
    "ase": ("ase==3.29.0", "ase"),
    "pandapower": ("pandapower==3.5.6", "pandapower"),
    "dspy": ("dspy==3.4.1", "dspy"),
    "composer": ("mosaicml==0.32.1", "composer"),
    "colossalai": ("colossalai==0.5.0", "colossalai"),
    "parlai": ("parlai==1.7.2", "parlai"),
    "wandb": ("wandb==0.31.0", "wandb"),
    "sunpy": ("sunpy==7.0.5", "sunpy"),
    "vispy": ("vispy==0.17.0", "vispy"),
    "conan": ("conan==2.34.0", "conan"),
    "buildbot": ("buildbot==4.3.0", "buildbot"),
    "obspy": ("obspy==1.5.1", "obspy"),
    # set N (session 13, seed 43): never analysed before; measured once on the session's first commit
    "scapy": ("scapy==2.8.0", "scapy"),
    "angr": ("angr==9.2.213", "angr"),
    "nipype": ("nipype==1.11.0", "nipype"),
    "moto": ("moto==5.2.5", "moto"),
    "mitmproxy": ("mitmproxy==11.0.2", "mitmproxy"),
    "sqlfluff": ("sqlfluff==4.5.0", "sqlfluff"),
    "dbt": ("dbt-core==1.12.6", "dbt"),
    "reportlab": ("reportlab==5.1.0", "reportlab"),
    "pyglet": ("pyglet==2.1.19", "pyglet"),
    "brian2": ("brian2==2.9.0", "brian2"),
    "nengo": ("nengo==4.1.0", "nengo"),
    "qutip": ("qutip==5.3.1", "qutip"),
    "openpyxl": ("openpyxl==3.1.5", "openpyxl"),
    "poetry": ("poetry==2.5.1", "poetry"),
    # set O (session 14, seed 44): never analysed before; measured once, untuned
    "airflow": ("apache-airflow-core==3.3.2", "airflow"),
    "locust": ("locust==2.47.0", "locust"),
    "pyannote": ("pyannote.audio==4.0.7", "pyannote"),
    "mmseg": ("mmsegmentation==1.2.2", "mmseg"),
    "mmpretrain": ("mmpretrain==1.2.0", "mmpretrain"),
    "haiku": ("dm-haiku==0.0.17", "haiku"),
    "TTS": ("coqui-tts==0.28.0", "TTS"),
    "catalyst": ("catalyst==22.4", "catalyst"),
    "arviz": ("arviz==0.23.4", "arviz"),
    "nilearn": ("nilearn==0.14.1", "nilearn"),
    "dipy": ("dipy==1.12.1", "dipy"),
    "torchio": ("torchio==1.2.1", "torchio"),
    "pykeen": ("pykeen==1.11.1", "pykeen"),
    "ludwig": ("ludwig==0.11.0", "ludwig"),
    "fairscale": ("fairscale==0.4.13", "fairscale"),
    "pymoo": ("pymoo==0.6.2", "pymoo"),
    "astroquery": ("astroquery==0.4.11", "astroquery"),
    # set P (session 15, seed 45): never analysed before; measured once, on the session's final analyzer
    "scanpy": ("scanpy==1.11.5", "scanpy"),
    "anndata": ("anndata==0.12.19", "anndata"),
    "river": ("river==0.26.1", "river"),
    "geopandas": ("geopandas==1.2.0", "geopandas"),
    "tensorboard": ("tensorboard==2.21.0", "tensorboard"),
    "dash": ("dash==4.4.1", "dash"),
    "alibi": ("alibi==0.9.6", "alibi"),
    "evidently": ("evidently==0.7.23", "evidently"),
    "tsfresh": ("tsfresh==0.21.2", "tsfresh"),
    "sanic": ("sanic==25.12.1", "sanic"),
    "fabric": ("fabric==3.2.2", "fabric"),
    "mkdocs": ("mkdocs==1.6.1", "mkdocs"),
    "nbconvert": ("nbconvert==7.17.2", "nbconvert"),
    "apscheduler": ("apscheduler==3.11.3", "apscheduler"),
    "rope": ("rope==1.15.2", "rope"),
    "redis": ("redis==8.1.0", "redis"),
    # set P continued (same seed): 20 more never analysed, since the first 16 gave only 8 error groups
    "elasticsearch": ("elasticsearch==9.5.1", "elasticsearch"),
    "docker": ("docker==7.2.0", "docker"),
    "jupyter_server": ("jupyter_server==2.21.1", "jupyter_server"),
    "ipywidgets": ("ipywidgets==8.1.9", "ipywidgets"),
    "gevent": ("gevent==26.9.0", "gevent"),
    "gunicorn": ("gunicorn==27.0.1", "gunicorn"),
    "hypercorn": ("hypercorn==0.18.0", "hypercorn"),
    "alembic": ("alembic==1.20.1", "alembic"),
    "pulp": ("pulp==3.3.2", "pulp"),
    "h5py": ("h5py==3.16.0", "h5py"),
    "shapely": ("shapely==2.2.0", "shapely"),
    "urllib3": ("urllib3==2.8.0", "urllib3"),
    "httpx": ("httpx==0.29.0", "httpx"),
    "falcon": ("falcon==4.4.0", "falcon"),
    "mako": ("mako==1.4.3", "mako"),
    "invoke": ("invoke==3.0.3", "invoke"),
    "parso": ("parso==0.8.7", "parso"),
    "onnx": ("onnx==1.23.2", "onnx"),
    "pelican": ("pelican==4.12.0", "pelican"),
    "dramatiq": ("dramatiq==2.2.1", "dramatiq"),
    # set Q (session 16, seed 46): never analysed before; measured once, untuned, on the analyzer of
    # the session's first three recall rules (none of them written for these codebases)
    "megatron": ("megatron-core==0.16.1", "megatron"),
    "lmdeploy": ("lmdeploy==0.18.0", "lmdeploy"),
    "modelscope": ("modelscope==1.40.2", "modelscope"),
    "swift": ("ms-swift==4.6.0", "swift"),
    "litgpt": ("litgpt==0.5.13", "litgpt"),
    "torchvision": ("torchvision==0.29.2", "torchvision"),
    "torchaudio": ("torchaudio==2.11.1", "torchaudio"),
    "pillow": ("pillow==13.0.0", "PIL"),
    "setuptools": ("setuptools==84.2.1", "setuptools"),
    "whisper": ("openai-whisper==20250625", "whisper"),
    "invokeai": ("invokeai==6.14.2", "invokeai"),
    "xinference": ("xinference==4.1.0", "xinference"),
    "paddlenlp": ("paddlenlp==2.8.1", "paddlenlp"),
    "dgl": ("dgl==2.1.0", "dgl"),
    "mdtraj": ("mdtraj==1.11.1.post2", "mdtraj"),
    "librosa": ("librosa==0.11.0", "librosa"),
    "ibis": ("ibis-framework==12.0.0", "ibis"),
    "eventlet": ("eventlet==0.41.3", "eventlet"),
    "rq": ("rq==3.0.0", "rq"),
    "huey": ("huey==3.5.4", "huey"),
    "bs4": ("beautifulsoup4==4.15.0", "bs4"),
    "requests": ("requests==2.34.2", "requests"),
    "flake8": ("flake8==7.5.0", "flake8"),
    "isort": ("isort==9.0.2", "isort"),
    "tox": ("tox==4.67.15", "tox"),
    "virtualenv": ("virtualenv==21.15.11", "virtualenv"),
    "pdm": ("pdm==2.29.4", "pdm"),
    "hatch": ("hatch==1.18.2", "hatch"),
    "bitsandbytes": ("bitsandbytes==0.50.2", "bitsandbytes"),
    "opacus": ("opacus==1.6.0", "opacus"),
    "fairlearn": ("fairlearn==0.15.0", "fairlearn"),
    "igraph": ("igraph==1.0.0", "igraph"),
    "arcade": ("arcade==3.3.3", "arcade"),
    "pymunk": ("pymunk==7.3.1", "pymunk"),
    # set R (session 17, seed 47): never analysed before; measured once, untuned, on the analyzer
    # the session started with (session 16's final rules; none written for these codebases)
    "torchtune": ("torchtune==0.6.1", "torchtune"),
    "axolotl": ("axolotl==0.19.0", "axolotl"),
    "nerfstudio": ("nerfstudio==1.1.5", "nerfstudio"),
    "e3nn": ("e3nn==0.6.0", "e3nn"),
    "deepxde": ("deepxde==1.15.0", "deepxde"),
    "pgmpy": ("pgmpy==1.1.2", "pgmpy"),
    "pomegranate": ("pomegranate==1.1.2", "pomegranate"),
    "lifelines": ("lifelines==0.30.3", "lifelines"),
    "neuralforecast": ("neuralforecast==3.3.0", "neuralforecast"),
    "statsforecast": ("statsforecast==2.1.1", "statsforecast"),
    "pycaret": ("pycaret==3.3.2", "pycaret"),
    "hyperopt": ("hyperopt==0.3.0", "hyperopt"),
    "nevergrad": ("nevergrad==1.0.12", "nevergrad"),
    "ax": ("ax-platform==1.3.1", "ax"),
    "sacred": ("sacred==0.8.7", "sacred"),
    "clearml": ("clearml==2.1.12", "clearml"),
    "metaflow": ("metaflow==2.19.39", "metaflow"),
    "zenml": ("zenml==0.98.0", "zenml"),
    "attrs": ("attrs==26.1.0", "attr"),
    "astroid": ("astroid==4.3.4", "astroid"),
    "pyflakes": ("pyflakes==4.1.0", "pyflakes"),
    "telegram": ("python-telegram-bot==22.8", "telegram"),
    "aiogram": ("aiogram==3.31.0", "aiogram"),
    "uvicorn": ("uvicorn==0.55.0", "uvicorn"),
    "mongoengine": ("mongoengine==0.29.3", "mongoengine"),
    "docx": ("python-docx==1.2.0", "docx"),
    "pypdf": ("pypdf==7.1.1", "pypdf"),
    "pdfminer": ("pdfminer.six==20260107", "pdfminer"),
    "moviepy": ("moviepy==2.2.1", "moviepy"),
    "markdown": ("markdown==3.11.3", "markdown"),
    "bandit": ("bandit==1.9.4", "bandit"),
    "yapf": ("yapf==0.43.0", "yapf"),
    "tabnet": ("pytorch-tabnet==4.1.0", "pytorch_tabnet"),
    "autogluon": ("autogluon.tabular==1.6.3", "autogluon"),
    "fairchem": ("fairchem-core==2.24.0", "fairchem"),
    "torchao": ("torchao==0.18.0", "torchao"),
    # set S (session 18, seed 48): never analysed before; measured once, untuned, on session 17's
    # final analyzer (7321b49), before any change of session 18
    "chainer": ("chainer==7.8.1", "chainer"),
    "mxnet": ("mxnet==1.9.1", "mxnet"),
    "deeplabcut": ("deeplabcut==3.0.2", "deeplabcut"),
    "yt": ("yt==4.4.3", "yt"),
    "psychopy": ("psychopy==2026.2.5", "psychopy"),
    "impacket": ("impacket==0.13.1", "impacket"),
    "pwntools": ("pwntools==4.15.0", "pwnlib"),
    "mercurial": ("mercurial==7.2.4", "mercurial"),
    "spyder": ("spyder==6.1.8", "spyder"),
    "orange": ("Orange3==3.40.0", "Orange"),
    "scons": ("scons==4.11.1", "SCons"),
    "prompt_toolkit": ("prompt_toolkit==3.0.53", "prompt_toolkit"),
    "nuitka": ("nuitka==4.3.3", "nuitka"),
    "wagtail": ("wagtail==8.0.1", "wagtail"),
    "neo": ("neo==0.14.6", "neo"),
    # set T (session 18, seed 49): never analysed before; measured once, untuned, on session 18's
    # final analyzer (after set S's rules)
    "cython": ("Cython==3.3.1", "Cython"),
    "pyinstaller": ("pyinstaller==6.22.3", "PyInstaller"),
    "meson": ("meson==1.12.1", "mesonbuild"),
    "urwid": ("urwid==5.1.0", "urwid"),
    "dnspython": ("dnspython==2.9.2", "dns"),
    "ldap3": ("ldap3==2.9.1", "ldap3"),
    "pyasn1": ("pyasn1==0.6.5", "pyasn1"),
    "flwr": ("flwr==1.42.0", "flwr"),
    "fiftyone": ("fiftyone==1.22.1", "fiftyone"),
    "cleanlab": ("cleanlab==2.9.0", "cleanlab"),
    "pyod": ("pyod==3.6.7", "pyod"),
    "sahi": ("sahi==0.12.8", "sahi"),
    "netmiko": ("netmiko==4.8.0", "netmiko"),
    "cherrypy": ("CherryPy==18.10.0", "cherrypy"),
    "pyramid": ("pyramid==2.1", "pyramid"),
    "mmocr": ("mmocr==1.0.1", "mmocr"),
    "homeassistant": ("homeassistant==2024.3.3", "homeassistant"),
    "beam": ("apache-beam==2.77.0", "apache_beam"),
    "nova": ("nova==34.0.0", "nova"),
    "synapse": ("matrix-synapse==1.163.2", "synapse"),
    # session 20, set U (seed 50): never analysed before this measurement
    "fairseq2": ("fairseq2==0.8.1", "fairseq2"),
    "semantic_kernel": ("semantic-kernel==1.45.0", "semantic_kernel"),
    "langchain_community": ("langchain-community==0.4.2", "langchain_community"),
    "lhotse": ("lhotse==1.33.0", "lhotse"),
    "torchrec": ("torchrec==1.9.2", "torchrec"),
    "funasr": ("funasr==1.4.16", "funasr"),
    "tf_models": ("tf-models-official==2.20.0", "official"),
    "keras_hub": ("keras-hub==0.32.0", "keras_hub"),
    "praxis": ("praxis==1.4.0", "praxis"),
    "orbax": ("orbax-checkpoint==0.12.8", "orbax"),
    "dm_control": ("dm-control==1.0.52", "dm_control"),
    "mani_skill": ("mani-skill==3.0.1", "mani_skill"),
    "weblate": ("weblate==5.14.3", "weblate"),
    "pretix": ("pretix==2026.8.0", "pretix"),
    "trac": ("trac==1.6", "trac"),
    "dulwich": ("dulwich==1.2.21", "dulwich"),
    "thunder": ("lightning-thunder==0.2.6", "thunder"),
    "bentoml": ("bentoml==1.4.40", "bentoml"),
    "scvi": ("scvi-tools==1.4.2", "scvi"),
    "thinc": ("thinc==9.1.1", "thinc"),
    "d3rlpy": ("d3rlpy==2.8.1", "d3rlpy"),
    "recbole": ("recbole==1.2.1", "recbole"),
    # session 21, set V (seed 51): never analysed before this measurement
    "nncf": ("nncf==3.4.0", "nncf"),
    "nnunetv2": ("nnunetv2==2.8.1", "nnunetv2"),
    "mmpose": ("mmpose==1.3.2", "mmpose"),
    "onmt": ("OpenNMT-py==3.5.1", "onmt"),
    "unsloth": ("unsloth==2026.10.9", "unsloth"),
    "llmcompressor": ("llmcompressor==0.14.0.1", "llmcompressor"),
    "hivemind": ("hivemind==1.1.12", "hivemind"),
    "asteroid": ("asteroid==0.7.0", "asteroid"),
    "simpletransformers": ("simpletransformers==0.70.8", "simpletransformers"),
    "bertopic": ("bertopic==0.17.4", "bertopic"),
    "pytorchvideo": ("pytorchvideo==0.1.5", "pytorchvideo"),
    "torchgeo": ("torchgeo==0.8.1", "torchgeo"),
    "setfit": ("setfit==1.2.0", "setfit"),
    "gliner": ("gliner==0.2.29", "gliner"),
    "outlines": ("outlines==1.3.3", "outlines"),
    "crewai": ("crewai==1.15.30", "crewai"),
    "nemoguardrails": ("nemoguardrails==0.24.1", "nemoguardrails"),
    # set X (session 22): never analysed before, measured once on the analyzer of that session
    "tensor2tensor": ("tensor2tensor==1.15.7", "tensor2tensor"), "trax": ("trax==1.4.1", "trax"),
    "mesh_tensorflow": ("mesh-tensorflow==0.1.21", "mesh_tensorflow"), "seqio": ("seqio==0.0.20", "seqio"),
    "t5": ("t5==0.9.4", "t5"), "textattack": ("textattack==0.3.11", "textattack"),
    "allennlp_models": ("allennlp-models==2.10.1", "allennlp_models"),
    "pytorch_metric_learning": ("pytorch-metric-learning==2.9.0", "pytorch_metric_learning"),
    "ogb": ("ogb==1.3.6", "ogb"), "dopamine": ("dopamine-rl==4.1.2", "dopamine"), "acme": ("dm-acme==0.4.0", "acme"),
    "tf_agents": ("tf-agents==0.19.0", "tf_agents"), "sonnet": ("dm-sonnet==2.0.2", "sonnet"),
    "gin": ("gin-config==0.5.0", "gin"), "gpflow": ("gpflow==2.11.2", "gpflow"),
    "pytorch_widedeep": ("pytorch-widedeep==1.7.0", "pytorch_widedeep"), "emukit": ("emukit==0.5.1", "emukit"),
    # set Y (session 23): never analysed before, measured once on the analyzer of that session
    "nibabel": ("nibabel==5.4.2", "nibabel"), "pydicom": ("pydicom==3.0.2", "pydicom"),
    "xformers": ("xformers==0.0.35", "xformers"), "instructor": ("instructor==1.17.0", "instructor"),
    "guidance": ("guidance==0.3.1", "guidance"), "imgaug": ("imgaug==0.4.0", "imgaug"),
    "coverage": ("coverage==7.18.0", "coverage"), "fastapi": ("fastapi==0.165.0", "fastapi"),
    "anthropic": ("anthropic==2.17.0", "anthropic"),
    # set Y, second part: 16 drawn with random.Random(55) from 36 never-analysed ML releases
    "bilby": ("bilby==2.8.2", "bilby"), "clu": ("clu==0.0.12", "clu"), "lingvo": ("lingvo==0.14.2", "lingvo"),
    "matminer": ("matminer==0.10.1", "matminer"), "mitiq": ("mitiq==1.1.0", "mitiq"),
    "mmdet3d": ("mmdet3d==1.4.0", "mmdet3d"), "netket": ("netket==3.23.0", "netket"), "paxml": ("paxml==1.4.0", "paxml"),
    "ppe": ("pytorch-pfn-extras==0.9.0", "pytorch_pfn_extras"), "sb3_contrib": ("sb3-contrib==2.9.2", "sb3_contrib"),
    "sbi": ("sbi==0.27.0", "sbi"), "tfrs": ("tensorflow-recommenders==0.7.7", "tensorflow_recommenders"),
    "texar": ("texar==0.2.4", "texar"), "tfx": ("tfx==1.21.0", "tfx"), "torchtext": ("torchtext==0.18.0", "torchtext"),
    "xtuner": ("xtuner==0.2.0", "xtuner"),
    # set Y, third part: the other 20 of those 36 (the first two parts had few errors)
    "strawberryfields": ("StrawberryFields==0.23.0", "strawberryfields"), "brax": ("brax==0.14.2", "brax"),
    "chex": ("chex==0.1.92", "chex"), "edward2": ("edward2==0.0.2", "edward2"), "fiddle": ("fiddle==0.3.1", "fiddle"),
    "kfp": ("kfp==2.17.3", "kfp"), "mace": ("mace-torch==0.3.16", "mace"), "mmaction2": ("mmaction2==1.2.0", "mmaction"),
    "mmagic": ("mmagic==1.2.0", "mmagic"), "nequip": ("nequip==0.19.1", "nequip"),
    "openfermion": ("openfermion==1.8.1", "openfermion"), "pyquil": ("pyquil==4.22.0", "pyquil"),
    "rasa": ("rasa==1.10.2", "rasa"), "schnetpack": ("schnetpack==2.1.1", "schnetpack"),
    "tf_addons": ("tensorflow-addons==0.23.0", "tensorflow_addons"),
    "tfds": ("tensorflow-datasets==4.9.10", "tensorflow_datasets"),
    "tff": ("tensorflow-federated==0.87.0", "tensorflow_federated"), "tfgan": ("tensorflow-gan==2.1.0", "tensorflow_gan"),
    "tf_keras": ("tf-keras==2.21.0", "tf_keras"), "fastnlp": ("FastNLP==1.0.1", "fastNLP"),
    # set Z (session 24): never analysed before, measured once on the analyzer of that session;
    # first part: four large ones chosen by hand (the frameworks and the attention library SGLang runs on)
    "torch": ("torch==2.13.0+cpu", "torch"), "tensorflow": ("tensorflow-cpu==2.21.0", "tensorflow"),
    "paddle": ("paddlepaddle==3.3.1", "paddle"), "flashinfer": ("flashinfer-python==0.7.4", "flashinfer"),
    # second part: 39 LLM serving, quantisation, training and evaluation releases
    "torchtitan": ("torchtitan==0.3.0", "torchtitan"), "liger_kernel": ("liger-kernel==0.8.5", "liger_kernel"),
    "compressed_tensors": ("compressed-tensors==0.20.1", "compressed_tensors"),
    "auto_round": ("auto-round==0.16.1", "auto_round"), "gptqmodel": ("gptqmodel==7.7.0", "gptqmodel"),
    "awq": ("autoawq==0.2.9", "awq"), "quanto": ("optimum-quanto==0.2.7", "optimum"), "hqq": ("hqq==0.2.8.post1", "hqq"),
    "nanotron": ("nanotron==0.4", "nanotron"), "llmfoundry": ("llm-foundry==0.22.0", "llmfoundry"),
    "streaming": ("mosaicml-streaming==0.13.0", "streaming"), "mii": ("deepspeed-mii==0.3.3", "mii"),
    "mistral_inference": ("mistral-inference==1.6.0", "mistral_inference"),
    "faster_whisper": ("faster-whisper==1.2.1", "faster_whisper"), "audiocraft": ("audiocraft==1.3.0", "audiocraft"),
    "tritonclient": ("tritonclient==2.73.0", "tritonclient"), "kserve": ("kserve==0.21.0", "kserve"),
    "openllm": ("openllm==0.6.30", "openllm"), "xgrammar": ("xgrammar==0.2.9", "xgrammar"),
    "torchx": ("torchx==0.7.0", "torchx"), "torchdata": ("torchdata==0.11.0", "torchdata"),
    "huggingface_hub": ("huggingface-hub==2.4.0", "huggingface_hub"), "opencompass": ("opencompass==0.5.4", "opencompass"),
    "mteb": ("mteb==2.26.24", "mteb"), "lavis": ("salesforce-lavis==1.0.2", "lavis"),
    "x_transformers": ("x-transformers==2.31.10", "x_transformers"),
    "vector_quantize": ("vector-quantize-pytorch==1.32.0", "vector_quantize_pytorch"),
    "k_diffusion": ("k-diffusion==0.1.1.post1", "k_diffusion"), "smolagents": ("smolagents==1.26.0", "smolagents"),
    "langgraph": ("langgraph==1.2.24", "langgraph"), "autogen_agentchat": ("autogen-agentchat==0.7.5", "autogen_agentchat"),
    "llama_stack": ("llama-stack==0.2.12", "llama_stack"), "deepeval": ("deepeval==4.3.1", "deepeval"),
    "ragas": ("ragas==0.4.3", "ragas"), "modelopt": ("nvidia-modelopt==0.47.0", "modelopt"),
    "mmyolo": ("mmyolo==0.6.0", "mmyolo"), "mmrotate": ("mmrotate==0.3.4", "mmrotate"),
    "mmrazor": ("mmrazor==1.0.0", "mmrazor"), "mmdeploy": ("mmdeploy==1.3.1", "mmdeploy"),
    # set AA (session 24): 67 never-analysed ML and science releases, all of them analysed, measured once
    # on the analyzer after set Z's rules (untuned for AA)
    "adapters": ("adapters==1.3.0", "adapters"), "aeon": ("aeon==1.6.0", "aeon"),
    "atomate2": ("atomate2==0.1.5", "atomate2"), "bambi": ("bambi==0.17.2", "bambi"),
    "bert_score": ("bert-score==0.3.13", "bert_score"), "blackjax": ("blackjax==1.7.1", "blackjax"),
    "cellrank": ("cellrank==2.0.7", "cellrank"), "chemprop": ("chemprop==2.3.1", "chemprop"),
    "chgnet": ("chgnet==0.4.2", "chgnet"), "datatrove": ("datatrove==0.10.1", "datatrove"),
    "devito": ("devito==4.8.23", "devito"), "dice_ml": ("dice-ml==0.12", "dice_ml"),
    "distrax": ("distrax==0.1.9", "distrax"), "dscribe": ("dscribe==2.1.2", "dscribe"),
    "dynesty": ("dynesty==3.1.0", "dynesty"), "easyocr": ("easyocr==1.7.2", "easyocr"),
    "emcee": ("emcee==3.1.6", "emcee"), "evosax": ("evosax==0.3.2", "evosax"),
    "flowjax": ("flowjax==19.1.2", "flowjax"), "gwpy": ("gwpy==4.1.0", "gwpy"), "gymnax": ("gymnax==1.0.1", "gymnax"),
    "highway_env": ("highway-env==1.12.1", "highway_env"), "hummingbird": ("hummingbird-ml==0.4.12", "hummingbird"),
    "insightface": ("insightface==2.1", "insightface"), "jobflow": ("jobflow==0.4.0", "jobflow"),
    "jumanji": ("jumanji==1.1.2", "jumanji"), "landlab": ("landlab==2.11.0", "landlab"),
    "lightkurve": ("lightkurve==2.6.0", "lightkurve"), "lime": ("lime==0.2.0.1", "lime"),
    "lpips": ("lpips==0.1.4", "lpips"), "matgl": ("matgl==4.1.2", "matgl"), "metpy": ("metpy==1.7.1", "metpy"),
    "minigrid": ("minigrid==3.2.0", "minigrid"), "mmfewshot": ("mmfewshot==0.1.0", "mmfewshot"),
    "mmflow": ("mmflow==0.5.2", "mmflow"), "mmselfsup": ("mmselfsup==1.0.0", "mmselfsup"),
    "mmtrack": ("mmtrack==0.14.0", "mmtrack"), "muon": ("muon==0.1.9", "muon"),
    "neural_compressor": ("neural-compressor==3.10", "neural_compressor"), "nflows": ("nflows==0.14", "nflows"),
    "ngboost": ("ngboost==0.6.0", "ngboost"), "nlpaug": ("nlpaug==1.1.11", "nlpaug"),
    "normflows": ("normflows==1.7.3", "normflows"), "onnxscript": ("onnxscript==0.7.2", "onnxscript"),
    "optimum_intel": ("optimum-intel==2.2.0", "optimum"), "osmnx": ("osmnx==2.1.1", "osmnx"),
    "paddleocr": ("paddleocr==3.7.0", "paddleocr"), "pfrl": ("pfrl==0.4.0", "pfrl"),
    "phonopy": ("phonopy==4.10.0", "phonopy"), "pypsa": ("pypsa==1.4.0", "pypsa"),
    "doctr": ("python-doctr==1.1.0", "doctr"), "pyts": ("pyts==0.14.1", "pyts"),
    "rl_games": ("rl-games==1.6.5", "rl_games"), "sacrebleu": ("sacrebleu==2.6.0", "sacrebleu"),
    "merlion": ("salesforce-merlion==2.0.4", "merlion"), "satpy": ("satpy==0.60.0", "satpy"),
    "segment_anything": ("segment-anything==1.0", "segment_anything"), "skl2onnx": ("skl2onnx==1.20.0", "skl2onnx"),
    "skrl": ("skrl==2.1.1", "skrl"), "squidpy": ("squidpy==1.8.2", "squidpy"),
    "supervision": ("supervision==0.31.2", "supervision"), "tf2onnx": ("tf2onnx==1.17.0", "tf2onnx"),
    "torch_fidelity": ("torch-fidelity==0.4.0", "torch_fidelity"), "tsai": ("tsai==1.0.1", "tsai"),
    "tslearn": ("tslearn==0.10.0", "tslearn"), "ultranest": ("ultranest==4.6.3", "ultranest"),
    "zuko": ("zuko==1.6.0", "zuko"),
    # set AB (session 25): large popular releases never analysed before
    "numpy": ("numpy==2.4.6", "numpy"),
    "triton": ("triton==3.9.0", "triton"), "onnxruntime": ("onnxruntime==1.32.0", "onnxruntime"),
    "catboost": ("catboost==1.2.10", "catboost"), "omegaconf": ("omegaconf==2.4.0", "omegaconf"),
    "openai": ("openai==3.63.0", "openai"), "einops": ("einops==0.8.2", "einops"),
    "autogluon_core": ("autogluon.core==1.6.3", "autogluon"),
    "autogluon_timeseries": ("autogluon.timeseries==1.6.3", "autogluon"),
    "autogluon_multimodal": ("autogluon.multimodal==1.6.3", "autogluon"), "exllamav2": ("exllamav2==0.3.2", "exllamav2"),
    "layoutparser": ("layoutparser==0.3.4", "layoutparser"), "lightning_fabric": ("lightning-fabric==2.6.6", "lightning_fabric"),
    "polars": ("polars==2.1.0", "polars"), "prophet": ("prophet==1.5.0", "prophet"), "pyarrow": ("pyarrow==26.0.1", "pyarrow"),
    "doctr": ("python-doctr==1.1.0", "doctr"), "roboflow": ("roboflow==1.7.3", "roboflow"), "whisperx": ("whisperx==3.8.6", "whisperx"),
    # set AC (session 26): large popular releases never analysed before, chosen by name before any was run
    "agno": ("agno==3.1.10", "agno"), "botocore": ("botocore==1.44.18", "botocore"),
    "camel": ("camel-ai==0.2.90", "camel"), "chromadb": ("chromadb==1.5.9", "chromadb"),
    "drf": ("djangorestframework==3.18.3", "rest_framework"), "ipykernel": ("ipykernel==7.4.0", "ipykernel"),
    "kubernetes": ("kubernetes==37.0.2", "kubernetes"), "lancedb": ("lancedb==0.40.0", "lancedb"),
    "litestar": ("litestar==2.25.0", "litestar"),
    "mem0": ("mem0ai==2.2.1", "mem0"), "mlx_lm": ("mlx-lm==0.32.2", "mlx_lm"), "modin": ("modin==0.37.1", "modin"),
    "openvino": ("openvino==2026.4.1", "openvino"), "pip": ("pip==26.3", "pip"), "plotly": ("plotly==7.1.0", "plotly"),
    "pydantic_ai": ("pydantic-ai-slim==2.78.0", "pydantic_ai"), "pymilvus": ("pymilvus==3.0.2", "pymilvus"),
    "qdrant_client": ("qdrant-client==1.20.0", "qdrant_client"), "tinygrad": ("tinygrad==0.14.0", "tinygrad"),
    "traitlets": ("traitlets==5.16.1", "traitlets"),
    # set AD (session 26): ML serving, interpretability and kernel-library releases never analysed
    # before, measured after set AC's rules
    "autogen_core": ("autogen-core==0.7.5", "autogen_core"), "docarray": ("docarray==0.41.0", "docarray"),
    "einx": ("einx==0.4.3", "einx"), "fla": ("flash-linear-attention==0.6.0", "fla"),
    "langchain_core": ("langchain-core==1.8.4", "langchain_core"), "lightllm": ("lightllm==0.0.1", "lightllm"),
    "litserve": ("litserve==0.2.19", "litserve"), "lmcache": ("lmcache==0.5.6", "lmcache"),
    "mlserver": ("mlserver==1.7.1", "mlserver"), "nnsight": ("nnsight==0.8.1", "nnsight"),
    "kan": ("pykan==0.2.8", "kan"), "sae_lens": ("sae-lens==6.54.12", "sae_lens"),
    "tilelang": ("tilelang==0.1.15", "tilelang"), "torchdiffeq": ("torchdiffeq==0.2.5", "torchdiffeq"),
    "transformer_lens": ("transformer-lens==4.3.0", "transformer_lens"),
    # set AE (session 27): RL/LLM training, document parsing, web apps and science releases never
    # analysed before, chosen by name before any was run
    # (openrlhf 0.11.2 was dropped before it was analysed: its wheel keeps the package under
    # openrlhf-0.11.2.data/, not at the top level)
    "verl": ("verl==0.9.1", "verl"),
    "llamafactory": ("llamafactory==0.9.5", "llamafactory"), "docling": ("docling-slim==2.143.0", "docling"),
    "unstructured": ("unstructured==0.27.35", "unstructured"), "superset": ("apache-superset==6.1.0", "superset"),
    "aider": ("aider-chat==0.86.2", "aider"), "flaml": ("flaml==2.8.0", "flaml"),
    "yt_dlp": ("yt-dlp==2026.11.23", "yt_dlp"), "checkov": ("checkov==3.3.30", "checkov"),
    "beets": ("beets==2.14.1", "beets"), "quimb": ("quimb==1.16.0", "quimb"),
    "syne_tune": ("syne-tune==0.16.0", "syne_tune"), "lighteval": ("lighteval==0.13.0", "lighteval"),
    "marker": ("marker-pdf==2.0.0", "marker"), "chainlit": ("chainlit==2.12.0", "chainlit"),
    "open_webui": ("open-webui==0.12.4", "open_webui"), "pyscf": ("pyscf==2.14.0", "pyscf"),
    "mistral_common": ("mistral-common==1.13.1", "mistral_common"),
    "torch_tensorrt": ("torch-tensorrt==2.14.0", "torch_tensorrt"),
    # set AF (session 28): PEFT, a workflow SDK, a Telegram client, a GUI toolkit and a GraphQL
    # library, never analysed before, chosen by name before any was run; measured once, untuned
    "peft": ("peft==0.21.2", "peft"), "flytekit": ("flytekit==1.16.31", "flytekit"),
    "telethon": ("telethon==1.45.0", "telethon"), "kivy": ("Kivy==2.3.1", "kivy"),
    "strawberry": ("strawberry-graphql==0.341.2", "strawberry"),
    # and, chosen by name after the first five gave 49 groups (peft and telethon: no error at all)
    "stripe": ("stripe==16.1.0", "stripe"), "altair": ("altair==6.3.0", "altair"),
    "slack_sdk": ("slack-sdk==3.48.0", "slack_sdk"), "cartopy": ("cartopy==0.26.0", "cartopy"),
    # set AG (session 29): two OpenStack services, a feature store, an MLOps
    # platform, a trading bot, a tuner, OpenMMLab's ops library and a quant platform, never analysed
    # before, chosen by name before any was run; measured once, untuned (sagemaker 3.27.0, also
    # chosen, was dropped unanalysed: its wheel is a meta-package with no code of its own)
    "neutron": ("neutron==29.0.0", "neutron"), "cinder": ("cinder==29.0.0", "cinder"),
    "feast": ("feast==0.67.0", "feast"),
    "mlrun": ("mlrun==1.12.1", "mlrun"), "freqtrade": ("freqtrade==2026.9", "freqtrade"),
    "keras_tuner": ("keras-tuner==1.4.8", "keras_tuner"), "mmcv": ("mmcv==2.2.0", "mmcv"),
    "qlib": ("pyqlib==0.9.7", "qlib"),
    # and, chosen by name after those eight gave 13 groups (freqtrade, keras-tuner, mmcv: no error)
    "gluoncv": ("gluoncv==0.10.5.post0", "gluoncv"), "keras_cv": ("keras-cv==0.9.0", "keras_cv"),
    "paddleseg": ("paddleseg==2.8.0", "paddleseg"), "heat": ("openstack-heat==27.0.1", "heat"),
    "glance": ("glance==33.0.0", "glance"), "ironic": ("ironic==39.0.0", "ironic"),
    # set AH (session 30): eight releases never analysed, drawn with random.Random(30).sample from
    # twelve candidates named before any was run (keystone, octavia, manila, discord.py, tortoise-orm,
    # napalm, pika, tweepy, selenium, twilio, nameko, mistral); measured once, untuned
    "selenium": ("selenium==4.53.0", "selenium"), "tortoise": ("tortoise-orm==1.1.9", "tortoise"),
    "twilio": ("twilio==9.13.0", "twilio"), "keystone": ("keystone==30.0.0", "keystone"),
    "discord": ("discord.py==2.7.1", "discord"), "manila": ("manila==23.0.1", "manila"),
    "mistral": ("mistral==23.0.0", "mistral"), "tweepy": ("tweepy==4.17.0", "tweepy"),
    # set AI (session 31): eight releases never analysed, drawn with random.Random(31).sample from
    # twelve candidates named before any was run (horovod, hikari, nextcord, pyrogram, peewee, pony,
    # quart, channels, troposphere, letta, browser-use, nicegui); measured once, untuned
    "channels": ("channels==4.3.2", "channels"), "hikari": ("hikari==2.7.0", "hikari"),
    "horovod": ("horovod==0.28.1", "horovod"), "letta": ("letta==0.34.12", "letta_code"),
    "nextcord": ("nextcord==2.6.0", "nextcord"), "nicegui": ("nicegui==3.18.0", "nicegui"),
    "pony": ("pony==0.7.20", "pony"), "quart": ("quart==0.22.0", "quart"),
    # set AJ (session 32): twelve ML releases never analysed (training, serving, kernels' Python
    # sides, experiment tracking), named before any was run; all twelve measured once, untuned
    "openrlhf": ("openrlhf==0.11.2", "openrlhf"), "mamba_ssm": ("mamba-ssm==2.3.2.post1", "mamba_ssm"),
    "petals": ("petals==2.2.0.post1", "petals"), "llama_cpp": ("llama-cpp-python==0.3.36", "llama_cpp"),
    "gguf": ("gguf==0.19.0", "gguf"), "optimum_habana": ("optimum-habana==1.21.2", "optimum"),
    "spacy_transformers": ("spacy-transformers==1.4.0", "spacy_transformers"),
    "autokeras": ("autokeras==3.0.0", "autokeras"), "aim": ("aim==3.29.1", "aim"),
    "pl_bolts": ("lightning-bolts==0.7.0", "pl_bolts"), "megablocks": ("megablocks==0.10.0", "megablocks"),
    "vllm_omni": ("vllm-omni==0.30.0", "vllm_omni"),
    # set AK (session 32): twelve ML-serving, training-infrastructure and experiment-tracking releases
    # never analysed, named before any was run; measured once with the session's final analyzer, untuned
    "skypilot": ("skypilot==0.14.1", "sky"), "dynamo": ("ai-dynamo==1.6.1", "dynamo"),
    "fvcore": ("fvcore==0.1.5.post20221221", "fvcore"),
    "lmformatenforcer": ("lm-format-enforcer==0.11.3", "lmformatenforcer"),
    "comet_ml": ("comet-ml==3.58.8", "comet_ml"), "neptune": ("neptune==1.14.0.post2", "neptune"),
    "dstack": ("dstack==0.22.5", "dstack"), "seldon_core": ("seldon-core==1.18.2", "seldon_core"),
    "aphrodite": ("aphrodite-engine==0.24.1", "aphrodite"), "vllm_ascend": ("vllm-ascend==0.23.0.post1", "vllm_ascend"),
    "unsloth_zoo": ("unsloth-zoo==2026.10.9", "unsloth_zoo"), "areal": ("areal==1.0.4", "areal"),
    # set AL (session 33): twelve LLM-serving, quantisation, agent, retrieval and audio releases never
    # analysed, named before any was run; measured once with the session's analyzer (b439e00), untuned
    "fastchat": ("fschat==0.2.36", "fastchat"), "auto_gptq": ("auto-gptq==0.7.1", "auto_gptq"),
    "aqlm": ("aqlm==1.1.7", "aqlm"), "llmlingua": ("llmlingua==0.2.2", "llmlingua"),
    "txtai": ("txtai==9.14.0", "txtai"), "langroid": ("langroid==0.69.16", "langroid"),
    "metagpt": ("metagpt==0.8.2", "metagpt"), "swarms": ("swarms==16.0.3", "swarms"),
    "guardrails": ("guardrails-ai==0.11.0", "guardrails"), "demucs": ("demucs==4.1.0", "demucs"),
    "audiolm_pytorch": ("audiolm-pytorch==2.4.0", "audiolm_pytorch"), "colbert": ("colbert-ai==0.2.22", "colbert"),
    # set AM (session 34): sixteen AutoML, time-series, model-serving, LLM-tooling, agent and graph
    # releases never analysed, named before any was run; measured once with the session's analyzer, untuned
    "deeppavlov": ("deeppavlov==1.7.0", "deeppavlov"), "neuralprophet": ("neuralprophet==0.9.0", "neuralprophet"),
    "autots": ("autots==1.0.4", "autots"), "pytorch_tabular": ("pytorch-tabular==1.2.0", "pytorch_tabular"),
    "lightautoml": ("lightautoml==0.4.2", "lightautoml"), "evalml": ("evalml==0.84.0", "evalml"),
    "supervised": ("mljar-supervised==1.3.2", "supervised"), "torchserve": ("torchserve==0.12.0", "ts"),
    "interpreter": ("open-interpreter==0.4.3", "interpreter"), "marvin": ("marvin==3.2.7", "marvin"),
    "langfuse": ("langfuse==5.2.0", "langfuse"), "phoenix": ("arize-phoenix==20.26.1", "phoenix"),
    "weaviate": ("weaviate-client==4.24.1", "weaviate"), "mlagents": ("mlagents==0.28.0", "mlagents"),
    "spektral": ("spektral==1.3.1", "spektral"), "embedchain": ("embedchain==0.1.128", "embedchain"),
    # set AN (session 34): fifteen 3D-vision, robotics, RL, Thai NLP, detection, data-loading and
    # storage releases never analysed, named before any was run; measured once (after e84d186), untuned
    "gsplat": ("gsplat==1.5.3", "gsplat"), "robosuite": ("robosuite==1.5.2", "robosuite"), "pgx": ("pgx==2.6.0", "pgx"),
    "sample_factory": ("sample-factory==2.1.1", "sample_factory"), "imitation": ("imitation==1.0.1", "imitation"),
    "minari": ("minari==0.5.4", "minari"), "shimmy": ("shimmy==2.0.1", "shimmy"),
    "pythainlp": ("pythainlp==5.4.0", "pythainlp"), "yolov5": ("yolov5==7.0.14", "yolov5"),
    "petastorm": ("petastorm==0.13.1", "petastorm"), "webdataset": ("webdataset==1.0.2", "webdataset"),
    "ffcv": ("ffcv==1.0.2", "ffcv"), "s3fs": ("s3fs==2026.9.0", "s3fs"), "pyiceberg": ("pyiceberg==0.12.0", "pyiceberg"),
    "torchsde": ("torchsde==0.2.6", "torchsde"),
    # set AO (session 34): thirteen bioinformatics, office-document, PDF-table, game-engine, UI,
    # infrastructure and forecasting releases never analysed, named before any was run; measured once
    # (after a82a267), untuned
    "biotite": ("biotite==1.6.0", "biotite"), "skbio": ("scikit-bio==0.7.4", "skbio"), "ete3": ("ete3==3.1.3", "ete3"),
    "dendropy": ("DendroPy==5.1.3", "dendropy"), "prody": ("ProDy==2.6.1", "prody"),
    "xlsxwriter": ("XlsxWriter==3.3.1", "xlsxwriter"), "pptx": ("python-pptx==1.0.2", "pptx"),
    "camelot": ("camelot-py==2.0.0", "camelot"), "ursina": ("ursina==7.0.0", "ursina"), "flet": ("flet==1.0.5", "flet"),
    "pulumi": ("pulumi==3.272.0", "pulumi"), "awscli": ("awscli==1.46.3", "awscli"),
    "greykite": ("greykite==1.1.0", "greykite"),
    # session 35, set AP (instrument control, fieldbus, RF, solar, evolutionary, RDF/OWL, MIDI, 3D, UI, SOAP)
    "qcodes": ("qcodes==0.58.0", "qcodes"), "ophyd": ("ophyd==1.11.2", "ophyd"), "bluesky": ("bluesky==1.15.1", "bluesky"),
    "pymodbus": ("pymodbus==3.16.1", "pymodbus"), "can": ("python-can==4.6.1", "can"), "skrf": ("scikit-rf==2.2.0", "skrf"),
    "pvlib": ("pvlib==0.16.1", "pvlib"), "deap": ("deap==1.4.4", "deap"), "pygad": ("pygad==3.9.2", "pygad"),
    "rdflib": ("rdflib==7.6.0", "rdflib"), "pyvisa": ("pyvisa==1.16.2", "pyvisa"), "mido": ("mido==1.3.3", "mido"),
    "pretty_midi": ("pretty_midi==0.2.11.post0", "pretty_midi"), "vedo": ("vedo==2026.6.3", "vedo"),
    "kivymd": ("kivymd==2.0.0", "kivymd"), "zeep": ("zeep==4.3.3", "zeep"), "cmd2": ("cmd2==4.3.1", "cmd2"),
    # set AQ (session 36): test automation, memory forensics, CAD, architecture geometry, a MUD engine,
    # trading, native UI, parameters, device firmware, Zigbee, SDN, PDF, static sites, BDD, cloud
    # templates, terminal UI; named before any was run
    "robotframework": ("robotframework==7.5", "robot"), "volatility3": ("volatility3==2.28.2", "volatility3"),
    "ezdxf": ("ezdxf==1.4.5", "ezdxf"), "compas": ("compas==2.15.1", "compas"), "evennia": ("evennia==5.0.1", "evennia"),
    "backtrader": ("backtrader==1.9.78.123", "backtrader"), "toga": ("toga-core==0.5.7", "toga"),
    "param": ("param==2.4.2", "param"), "esphome": ("esphome==2026.6.5", "esphome"), "zigpy": ("zigpy==2.4.0", "zigpy"),
    "ryu": ("ryu==4.34", "ryu"), "fpdf2": ("fpdf2==2.8.9", "fpdf"), "nikola": ("nikola==8.3.3", "nikola"),
    "behave": ("behave==1.3.3", "behave"), "troposphere": ("troposphere==4.11.1", "troposphere"),
    "asciimatics": ("asciimatics==1.15.0", "asciimatics"),
    # set AR (session 36): window manager, shell, downloaders, HTTP client, REPL, Enthought's traits
    # stack (visualisation, UI, plugins, plots), SNMP; named before any was run
    "qtile": ("qtile==0.33.0", "libqtile"), "xonsh": ("xonsh==0.25.0", "xonsh"),
    "gallery_dl": ("gallery-dl==1.32.18", "gallery_dl"), "streamlink": ("streamlink==8.6.3", "streamlink"),
    "httpie": ("httpie==3.2.4", "httpie"), "bpython": ("bpython==0.26", "bpython"), "mayavi": ("mayavi==4.9.0", "mayavi"),
    "traits": ("traits==7.3.0", "traits"), "pyface": ("pyface==8.0.0", "pyface"), "envisage": ("envisage==8.0.1", "envisage"),
    "chaco": ("chaco==6.1.1", "chaco"), "pysnmp": ("pysnmp==7.1.30", "pysnmp"),
    # set AS (session 37): named before any was run (airflow and pdfminer, named too, were analysed before)
    "faker": ("faker==40.63.0", "faker"), "arrow": ("arrow==1.4.0", "arrow"), "babel": ("babel==2.19.0", "babel"),
    "weasyprint": ("weasyprint==70.0", "weasyprint"), "html5lib": ("html5lib==1.1", "html5lib"),
    "plumbum": ("plumbum==2.0.2", "plumbum"), "asyncssh": ("asyncssh==2.24.1", "asyncssh"),
    "mechanize": ("mechanize==0.4.10", "mechanize"), "genshi": ("genshi==0.7.12", "genshi"), "doit": ("doit==0.37.0", "doit"),
    "pexpect": ("pexpect==4.9.0", "pexpect"), "chameleon": ("chameleon==4.6.0", "chameleon"),
    "tablib": ("tablib==3.10.0", "tablib"), "cheetah3": ("cheetah3==3.2.6.post1", "Cheetah"),
    # set AT (session 37): named after AS had run, before any AT release was run
    "cupy": ("cupy-cuda12x==14.2.0", "cupy"), "pipenv": ("pipenv==2026.10.3", "pipenv"),
    "magenta": ("magenta==2.1.4", "magenta"), "playwright": ("playwright==1.65.3", "playwright"),
    "notebook": ("notebook==7.6.5", "notebook"), "intake": ("intake==2.0.9", "intake"),
    "kerchunk": ("kerchunk==0.2.10", "kerchunk"), "pendulum": ("pendulum==3.3.0", "pendulum"),
    "pdfplumber": ("pdfplumber==0.11.11", "pdfplumber"), "xhtml2pdf": ("xhtml2pdf==0.2.28", "xhtml2pdf"),
    "cryptography": ("cryptography==51.0.1", "cryptography"), "mistune": ("mistune==3.4.0", "mistune"),
    "markdown_it": ("markdown-it-py==4.3.0", "markdown_it"), "nox": ("nox==2026.10.20", "nox"),
    "copier": ("copier==9.19.1", "copier"),
    # set AU (session 38): named before any was run (jupyter_client replaced owlready2, whose sdist has no package folder)
    "napalm": ("napalm==5.2.0", "napalm"), "ncclient": ("ncclient==0.7.1", "ncclient"), "h2": ("h2==4.4.1", "h2"),
    "lark": ("lark==1.3.1", "lark"), "textx": ("textX==4.4.0", "textx"),
    "jupyter_client": ("jupyter_client==8.10.0", "jupyter_client"),
    "dpkt": ("dpkt==1.9.8", "dpkt"), "pyparsing": ("pyparsing==3.3.3", "pyparsing"),
    "autobahn": ("autobahn==26.11.1", "autobahn"), "pyopengl": ("PyOpenGL==3.1.10", "OpenGL"),
    "mutagen": ("mutagen==1.48.1", "mutagen"), "pika": ("pika==1.4.4", "pika"), "kazoo": ("kazoo==2.11.0", "kazoo"),
    "odfpy": ("odfpy==1.4.1", "odf"),
    # set AV (session 38): named after AU gave 9 groups in all, before any AV release was run
    "spikeinterface": ("spikeinterface==0.105.3", "spikeinterface"), "pynwb": ("pynwb==4.2.0", "pynwb"),
    "hdmf": ("hdmf==6.2.0", "hdmf"), "gammapy": ("gammapy==2.1", "gammapy"), "ctapipe": ("ctapipe==0.28.0", "ctapipe"),
    "lmfit": ("lmfit==1.3.4", "lmfit"), "zfit": ("zfit==0.28.0", "zfit"), "pyhf": ("pyhf==0.7.6", "pyhf"),
    "uproot": ("uproot==5.7.7", "uproot"), "coffea": ("coffea==2026.9.0", "coffea"),
    "specutils": ("specutils==2.4.0", "specutils"), "photutils": ("photutils==3.0.0", "photutils"),
    "roboticstoolbox": ("roboticstoolbox-python==1.5.0", "roboticstoolbox"), "iris": ("scitools-iris==3.14.1", "iris"),
    # set AW (session 38): named after AV's labels, measured on the analyzer with session 38's two rules
    "arch": ("arch==8.0.0", "arch"), "linearmodels": ("linearmodels==7.1", "linearmodels"),
    "sksurv": ("scikit-survival==0.28.0", "sksurv"), "pmdarima": ("pmdarima==2.1.1", "pmdarima"),
    "filterpy": ("filterpy==2.0.0", "filterpy"), "hmmlearn": ("hmmlearn==0.3.3", "hmmlearn"),
    "salabim": ("salabim==26.0.9", "salabim"), "vaex": ("vaex-core==4.19.0", "vaex"),
    "fastparquet": ("fastparquet==2026.9.0", "fastparquet"), "petl": ("petl==1.7.30", "petl"),
    "agate": ("agate==1.14.2", "agate"), "graphene": ("graphene==3.4.3", "graphene"),
    "npyscreen": ("npyscreen==5.0.4", "npyscreen"), "websockets": ("websockets==17.4", "websockets"),
    # set AX (session 39; seed 82 over the entries above never measured): envisage pyiceberg pythainlp
    # llmlingua ffcv fastchat langroid evalml auto_gptq pptx, 0 error groups in all ten.
    # set AY (session 39): named by hand from outside this list, measured on the session's start tree
    "octavia": ("octavia==19.0.0", "octavia"), "pygame": ("pygame==2.6.1", "pygame"),
    "psycopg": ("psycopg==3.3.9", "psycopg"), "git": ("GitPython==3.2.1", "git"),
    "github": ("PyGithub==2.10.0", "github"), "gitlab": ("python-gitlab==8.6.0", "gitlab"),
    "gym": ("gym==0.26.2", "gym"), "scenedetect": ("scenedetect==0.7.2", "scenedetect"),
    "pydub": ("pydub==0.25.1", "pydub"), "authlib": ("Authlib==1.9.10", "authlib"),
    # set AZ (session 39): as AY, larger class-heavy trees
    "pywikibot": ("pywikibot==11.9.0", "pywikibot"), "boto": ("boto==2.49.0", "boto"),
    "plotnine": ("plotnine==0.15.9", "plotnine"), "libcst": ("libcst==1.9.0", "libcst"),
    "imageio": ("imageio==2.38.2", "imageio"), "nose2": ("nose2==0.16.0", "nose2"),
    "ipyparallel": ("ipyparallel==9.2.0", "ipyparallel"), "jira": ("jira==3.10.5", "jira"),
    "mpmath": ("mpmath==1.4.1", "mpmath"), "tensorpack": ("tensorpack==0.11", "tensorpack"),
    # set BA (session 39): named before AY/AZ's rules were written, measured on the analyzer with them
    # (owlready2 0.51 was named first: its sdist has no package folder, so Pyro5 took its place)
    "rpyc": ("rpyc==6.0.2", "rpyc"), "sqlobject": ("SQLObject==3.14.0", "sqlobject"),
    "Pyro5": ("Pyro5==5.17", "Pyro5"), "pygame_gui": ("pygame_gui==0.6.14", "pygame_gui"),
    "thespian": ("thespian==4.0.1", "thespian"), "transitions": ("transitions==0.9.3", "transitions"),
    "slixmpp": ("slixmpp==1.17.0", "slixmpp"), "jenkinsapi": ("jenkinsapi==0.3.23", "jenkinsapi"),
    "errbot": ("errbot==6.2.1", "errbot"), "xlwings": ("xlwings==0.37.8", "xlwings"),
    # set BB (session 40): named by hand from outside this list, measured on the session's start tree
    "trytond": ("trytond==8.2.1", "trytond"), "praw": ("praw==8.0.3", "praw"),
    "nio": ("matrix-nio==0.26.0", "nio"), "bleak": ("bleak==3.1.0", "bleak"),
    "pymeasure": ("pymeasure==0.16.0", "pymeasure"), "projectq": ("projectq==0.8.0", "projectq"),
    "cadquery": ("cadquery==2.8.0", "cadquery"), "opsdroid": ("opsdroid==0.31.0", "opsdroid"),
    "qibo": ("qibo==0.3.6", "qibo"), "braket": ("amazon-braket-sdk==1.127.5", "braket"),
    # set BC (session 40): as BB, named after BB's run (9 error groups in 1,422 files), before any label
    "glue": ("glue-core==1.28.0", "glue"), "reflex": ("reflex==0.10.1", "reflex"),
    "briefcase": ("briefcase==0.4.7", "briefcase"), "enaml": ("enaml==0.19.0", "enaml"),
    "magicgui": ("magicgui==0.10.2", "magicgui"), "instruments": ("instrumentkit==0.6.0", "instruments"),
    "epics": ("pyepics==3.5.10", "epics"), "pyNN": ("PyNN==0.13.0", "pyNN"),
    "expyriment": ("expyriment==1.0.1", "expyriment"), "pyinfra": ("pyinfra==3.10.0", "pyinfra"),
    # set BD (session 41): named by hand from outside this list, measured on the session's start tree
    "build123d": ("build123d==0.13.0", "build123d"), "skyfield": ("skyfield==1.55", "skyfield"),
    "poliastro": ("poliastro==0.12.0", "poliastro"), "azure_core": ("azure-core==1.41.0", "azure"),
    "cassandra": ("cassandra-driver==3.30.1", "cassandra"), "neo4j": ("neo4j==6.4.1", "neo4j"),
    "opensearchpy": ("opensearch-py==3.2.0", "opensearchpy"), "label_studio": ("label-studio==1.23.2", "label_studio"),
    # (six of those eight had no error group: eight more, named after that run and before any label)
    "py2neo": ("py2neo==2021.2.4", "py2neo"), "elasticsearch_dsl": ("elasticsearch-dsl==8.18.0", "elasticsearch_dsl"),
    "factory": ("factory-boy==3.3.3", "factory"), "dateparser": ("dateparser==1.5.0", "dateparser"),
    "pyppeteer": ("pyppeteer==2.0.0", "pyppeteer"), "mimesis": ("mimesis==22.2.0", "mimesis"),
    "nameko": ("nameko==2.14.1", "nameko"), "splinter": ("splinter==0.21.0", "splinter"),
    # (those sixteen gave 13 error groups: six more, named after that run and before any label)
    "pyrogram": ("pyrogram==2.0.106", "pyrogram"), "atlassian": ("atlassian-python-api==5.0.5", "atlassian"),
    "supervisor": ("supervisor==4.3.0", "supervisor"), "coremltools": ("coremltools==9.0", "coremltools"),
    "circus": ("circus==0.19.0", "circus"), "billiard": ("billiard==4.3.2", "billiard"),
    # set BE (session 41): named by hand from outside this list after BD's labels, measured on the
    # session's final analyzer (no rule written from it)
    "alibi_detect": ("alibi-detect==0.13.0", "alibi_detect"), "aif360": ("aif360==0.6.1", "aif360"),
    "dowhy": ("dowhy==0.14", "dowhy"), "econml": ("econml==0.17.0", "econml"), "causalml": ("causalml==0.18.0", "causalml"),
    "skopt": ("scikit-optimize==0.10.2", "skopt"), "pymc_marketing": ("pymc-marketing==0.19.2", "pymc_marketing"),
    "pycox": ("pycox==0.3.0", "pycox"), "yellowbrick": ("yellowbrick==1.5", "yellowbrick"), "h2o": ("h2o==3.46.0.12", "h2o"),
    "tpot": ("tpot==1.1.0", "tpot"), "hpbandster": ("hpbandster==0.7.4", "hpbandster"), "medpy": ("medpy==0.5.2", "medpy"),
    "wfdb": ("wfdb==4.3.1", "wfdb"),
    # set BF (session 42), named before any analyzer ran on them
    "frictionless": ("frictionless==5.21.0", "frictionless"), "prowler": ("prowler==5.46.0", "prowler"),
    "scoutsuite": ("scoutsuite==5.14.0", "ScoutSuite"), "deepchecks": ("deepchecks==0.19.1", "deepchecks"),
    "nannyml": ("nannyml==0.13.1", "nannyml"), "snorkel": ("snorkel==0.10.0", "snorkel"),
    "whylogs": ("whylogs==1.6.4", "whylogs"), "habitat": ("habitat-lab==0.3.320260507", "habitat"),
    "textworld": ("textworld==1.7.0", "textworld"), "tensorlayer": ("tensorlayer==2.2.5", "tensorlayer"),
    "lektor": ("lektor==3.3.14", "lektor"), "zodb": ("zodb==6.4", "ZODB"), "pudb": ("pudb==2026.1", "pudb"),
    "slack_bolt": ("slack-bolt==1.30.0", "slack_bolt"), "cx_freeze": ("cx-freeze==8.7.3", "cx_Freeze"),
    "motor": ("motor==3.7.1", "motor"), "beanie": ("beanie==2.2.0", "beanie"), "colander": ("colander==2.0", "colander"),
    "karateclub": ("karateclub==1.3.3", "karateclub"), "kats": ("kats==0.2.0", "kats"),
    "datasette": ("datasette==0.65.5", "datasette"), "semgrep": ("semgrep==1.187.0", "semgrep"),
    "smart_open": ("smart-open==9.0.4", "smart_open"), "gcsfs": ("gcsfs==2026.10.1", "gcsfs"),
    # set BG (session 42), named before any analyzer ran on them (pyannote.audio, also named, was
    # measured in an earlier session and is left out), measured on d0c9044 (set BF's rules)
    "roundup": ("roundup==2.6.0", "roundup"), "breezy": ("breezy==3.3.23", "breezy"),
    "offlineimap": ("offlineimap==8.0.3", "offlineimap"), "mailman": ("mailman==3.3.10", "mailman"),
    "deluge": ("deluge==2.2.0", "deluge"), "veusz": ("veusz==4.2.1", "veusz"), "traitsui": ("traitsui==8.0.0", "traitsui"),
    "enable": ("enable==6.1.0", "enable"), "zope_component": ("zope.component==7.1", "zope"),
    "zope_schema": ("zope.schema==8.1", "zope"), "persistent": ("persistent==6.9", "persistent"),
    "btrees": ("btrees==6.5", "BTrees"), "transaction": ("transaction==5.1", "transaction"),
    "waitress": ("waitress==3.0.2", "waitress"), "webob": ("webob==1.8.11", "webob"), "paste": ("paste==3.10.1", "paste"),
    "formencode": ("formencode==2.1.1", "formencode"), "turbogears2": ("turbogears2==2.5.1", "tg"),
    "glumpy": ("glumpy==1.2.1", "glumpy"),
    "bqplot": ("bqplot==0.13.1", "bqplot"), "pytest_bdd": ("pytest-bdd==9.0.1", "pytest_bdd"),
    "piptools": ("pip-tools==7.7.0", "piptools"), "odmantic": ("odmantic==1.1.0", "odmantic"),
    "schematics": ("schematics==2.1.1", "schematics"), "cattrs": ("cattrs==26.2.1", "cattrs"), "vcr": ("vcrpy==9.4.2", "vcr"),
    # set BH (session 43, named before any run; owlready2 0.51 dropped: its sdist has no package folder)
    "cliff": ("cliff==4.17.0", "cliff"), "typer": ("typer==0.29.2", "typer"), "curio": ("curio==1.6", "curio"),
    "joblib": ("joblib==1.6.0", "joblib"), "awkward": ("awkward==2.14.0", "awkward"), "hist": ("hist==2.12.1", "hist"),
    "sqlparse": ("sqlparse==0.6.1", "sqlparse"), "ormar": ("ormar==0.26.0", "ormar"), "piccolo": ("piccolo==1.38.0", "piccolo"),
    "pymodm": ("pymodm==0.4.3", "pymodm"), "walrus": ("walrus==0.9.8", "walrus"), "rocketry": ("rocketry==2.5.1", "rocketry"),
    "pyshacl": ("pyshacl==0.40.1", "pyshacl"), "textblob": ("textblob==0.20.1", "textblob"),
    "sqlalchemy_utils": ("sqlalchemy-utils==0.43.0", "sqlalchemy_utils"), "pynndescent": ("pynndescent==0.7.0", "pynndescent"), "meshio": ("meshio==5.3.5", "meshio"),
    "sfepy": ("sfepy==2026.3", "sfepy"), "galois": ("galois==0.4.11", "galois"), "anyio": ("anyio==4.16.0", "anyio"),
    "ccdproc": ("ccdproc==2.5.1", "ccdproc"), "multiqc": ("multiqc==1.35", "multiqc"), "snakemake": ("snakemake==9.27.1", "snakemake"),
    "cwltool": ("cwltool==3.3.20260925135507", "cwltool"), "toil": ("toil==9.6.0", "toil"), "bioblend": ("bioblend==1.9.0", "bioblend"),
    "pyteomics": ("pyteomics==5.0.1", "pyteomics"), "matchms": ("matchms==0.33.1", "matchms"),
    "theano": ("theano==1.0.5", "theano"), "pyx": ("pyx==0.18", "pyx"), "nipy": ("nipy==0.6.1", "nipy"),
    "control": ("control==0.10.2", "control"), "pybrain": ("pybrain==0.3", "pybrain"), "mdp": ("mdp==3.6", "mdp"),
    "deeptools": ("deeptools==3.5.6", "deeptools"), "pygsp": ("pygsp==0.6.1", "pygsp"),
    # set BI (session 44, named before any run: 17 OpenStack services and 11 other pure-Python
    # packages never analysed before; sf-hamilton and watcher dropped: no package folder / one file)
    "hug": ("hug==2.6.1", "hug"), "patsy": ("patsy==1.0.3", "patsy"), "pyserial": ("pyserial==3.5", "serial"),
    "pyusb": ("pyusb==1.3.1", "usb"), "nornir": ("nornir==3.6.0", "nornir"), "freezer": ("freezer==19.0.0", "freezer"),
    "pox": ("pox==0.3.7", "pox"), "blazar": ("blazar==18.0.0", "blazar"), "pyshark": ("pyshark==0.6", "pyshark"),
    "solum": ("solum==15.0.0", "solum"), "designate": ("designate==23.0.0", "designate"),
    "senlin": ("senlin==16.0.0", "senlin"), "zun": ("zun==18.0.0", "zun"), "barbican": ("barbican==23.0.0", "barbican"),
    "aodh": ("aodh==23.0.0", "aodh"), "masakari": ("masakari==22.0.0", "masakari"), "magnum": ("magnum==23.0.0", "magnum"),
    "ploomber": ("ploomber==0.23.3", "ploomber"), "zaqar": ("zaqar==23.0.1", "zaqar"),
    "ceilometer": ("ceilometer==27.0.0", "ceilometer"), "gnocchi": ("gnocchi==4.7.1", "gnocchi"),
    "vitrage": ("vitrage==15.0.1", "vitrage"), "trove": ("trove==26.0.0", "trove"), "tacker": ("tacker==16.0.0", "tacker"),
    "datashader": ("datashader==0.19.1", "datashader"), "ginga": ("ginga==7.5.0", "ginga"),
    "horizon": ("horizon==27.0.0", "horizon"), "mininet": ("mininet==2.3.0.dev6", "mininet"),
    # set BJ (session 45): 45 releases never analysed, named before any was run: tooling (packaging,
    # publishing, linters, scaffolding, build), logging and observability agents, serialisation and
    # validation, HTTP mocking, profilers, a cloud emulator, an LLVM binding; measured once, untuned
    "localstack": ("localstack-core==2026.3.0", "localstack"), "ruamel": ("ruamel.yaml==0.19.1", "ruamel"),
    "tomlkit": ("tomlkit==0.15.3", "tomlkit"), "llvmlite": ("llvmlite==0.50.0", "llvmlite"), "cffi": ("cffi==2.1.1", "cffi"),
    "structlog": ("structlog==26.1.0", "structlog"), "loguru": ("loguru==0.7.3", "loguru"), "eliot": ("eliot==1.18.0", "eliot"),
    "opentelemetry": ("opentelemetry-sdk==1.45.2", "opentelemetry"),
    "prometheus_client": ("prometheus-client==0.26.0", "prometheus_client"), "datadog": ("datadog==0.56.0", "datadog"),
    "newrelic": ("newrelic==14.1.0", "newrelic"), "psutil": ("psutil==7.2.2", "psutil"), "scalene": ("scalene==2.4.0", "scalene"),
    "memray": ("memray==1.20.0", "memray"), "pympler": ("pympler==1.1", "pympler"), "guppy": ("guppy3==3.1.7", "guppy"),
    "twine": ("twine==7.0.0", "twine"), "setuptools_scm": ("setuptools-scm==10.3.4", "setuptools_scm"),
    "pre_commit": ("pre-commit==4.7.0", "pre_commit"), "cookiecutter": ("cookiecutter==2.7.1", "cookiecutter"),
    "pyscaffold": ("pyscaffold==4.6", "pyscaffold"), "pybuilder": ("pybuilder==0.13.24", "pybuilder"),
    "easybuild": ("easybuild-framework==5.4.1", "easybuild"), "pip_audit": ("pip-audit==2.10.1", "pip_audit"),
    "safety": ("safety==3.8.1", "safety"), "bowler": ("bowler==0.9.0", "bowler"), "pydocstyle": ("pydocstyle==6.3.0", "pydocstyle"),
    "darglint": ("darglint==1.8.1", "darglint"), "uncertainties": ("uncertainties==3.2.3", "uncertainties"),
    "click": ("click==8.5.1", "click"), "cerberus": ("cerberus==1.3.8", "cerberus"), "voluptuous": ("voluptuous==0.16.0", "voluptuous"),
    "jsonschema": ("jsonschema==4.26.0", "jsonschema"), "bleach": ("bleach==6.4.0", "bleach"), "daphne": ("daphne==4.2.3", "daphne"),
    "folium": ("folium==0.20.0", "folium"), "voila": ("voila==0.5.13", "voila"), "nbformat": ("nbformat==5.11.1", "nbformat"),
    "radon": ("radon==6.0.1", "radon"), "vulture": ("vulture==2.16", "vulture"), "freezegun": ("freezegun==1.5.5", "freezegun"),
    "responses": ("responses==0.26.3", "responses"), "httpretty": ("httpretty==1.1.4", "httpretty"),
    "betamax": ("betamax==0.9.0", "betamax"),
    # set BK (session 45): 56 releases never analysed, named before any was run (terminal UIs,
    # profilers, SQL builders and drivers, task queues, message brokers, industrial protocols, graphics,
    # PDF and spreadsheets, feed and article extraction, Markdown, encodings, CLI builders, state
    # machines, graph drawing); measured once on the analyzer after set BJ's rules, untuned
    "blessed": ("blessed==1.53.0", "blessed"), "curtsies": ("curtsies==0.4.3", "curtsies"),
    "ptpython": ("ptpython==3.0.32", "ptpython"), "pyinstrument": ("pyinstrument==5.1.3", "pyinstrument"),
    "viztracer": ("viztracer==1.1.1", "viztracer"), "hunter": ("hunter==3.9.0", "hunter"),
    "pypika": ("pypika==0.51.1", "pypika"), "dataset": ("dataset==2.0.0", "dataset"),
    "sqlmodel": ("sqlmodel==0.0.50", "sqlmodel"), "databases": ("databases==0.9.0", "databases"),
    "asyncpg": ("asyncpg==0.32.0", "asyncpg"), "pymysql": ("pymysql==1.2.4", "pymysql"),
    "oracledb": ("oracledb==26.1.0", "oracledb"), "Pyro4": ("pyro4==4.82", "Pyro4"),
    "pykka": ("pykka==4.5.0", "pykka"), "arq": ("arq==0.28.0", "arq"), "taskiq": ("taskiq==0.13.0", "taskiq"),
    "faust": ("faust-streaming==0.15.3", "faust"), "kafka": ("kafka-python==3.0.12", "kafka"),
    "aiokafka": ("aiokafka==0.14.0", "aiokafka"), "amqp": ("amqp==5.4.2", "amqp"),
    "aio_pika": ("aio-pika==10.2.1", "aio_pika"), "nats": ("nats-py==2.16.0", "nats"),
    "paho": ("paho-mqtt==2.2.0", "paho"), "asyncua": ("asyncua==2.1.0", "asyncua"),
    "pyads": ("pyads==3.6.0", "pyads"), "pycomm3": ("pycomm3==1.2.16", "pycomm3"),
    "moderngl": ("moderngl==5.13.0", "moderngl"), "sdl2": ("pysdl2==0.9.17", "sdl2"),
    "pygal": ("pygal==3.1.3", "pygal"), "pikepdf": ("pikepdf==10.18.0", "pikepdf"), "borb": ("borb==3.0.9", "borb"),
    "pyexcel": ("pyexcel==0.7.6", "pyexcel"), "feedparser": ("feedparser==6.0.14", "feedparser"),
    "newspaper": ("newspaper3k==0.2.8", "newspaper"), "trafilatura": ("trafilatura==2.3.1", "trafilatura"),
    "html2text": ("html2text==2025.4.15", "html2text"), "mistletoe": ("mistletoe==1.6.0", "mistletoe"),
    "commonmark": ("commonmark==0.9.2", "commonmark"), "chardet": ("chardet==7.7.0", "chardet"),
    "charset_normalizer": ("charset-normalizer==3.5.3", "charset_normalizer"), "ftfy": ("ftfy==6.3.1", "ftfy"),
    "inflect": ("inflect==7.6.0", "inflect"), "pycountry": ("pycountry==26.2.16", "pycountry"),
    "parsedatetime": ("parsedatetime==2.6", "parsedatetime"), "cleo": ("cleo==2.1.0", "cleo"),
    "fire": ("fire==0.7.1", "fire"), "jsonargparse": ("jsonargparse==4.53.0", "jsonargparse"),
    "simple_parsing": ("simple-parsing==0.1.9", "simple_parsing"),
    "ml_collections": ("ml-collections==1.1.0", "ml_collections"),
    "statemachine": ("python-statemachine==3.2.2", "statemachine"), "automat": ("automat==25.4.16", "automat"),
    "sismic": ("sismic==1.6.14", "sismic"), "pydot": ("pydot==4.0.1", "pydot"),
    "graphviz": ("graphviz==0.21", "graphviz"), "pyvis": ("pyvis==0.3.2", "pyvis"),
    # set BL (session 46): 54 releases named before any run
    "pyjwt": ("pyjwt==2.15.1", "jwt"),
    "oauthlib": ("oauthlib==4.0.1", "oauthlib"),
    "passlib": ("passlib==1.7.4", "passlib"),
    "pysmb": ("pysmb==1.2.15", "smb"),
    "smbprotocol": ("smbprotocol==1.17.0", "smbprotocol"),
    "pywinrm": ("pywinrm==0.5.0", "winrm"),
    "dynaconf": ("dynaconf==3.3.5", "dynaconf"),
    "configobj": ("configobj==5.0.9", "configobj"),
    "pyrsistent": ("pyrsistent==0.20.0", "pyrsistent"),
    "toolz": ("toolz==1.2.0", "toolz"),
    "funcy": ("funcy==2.1", "funcy"),
    "boltons": ("boltons==26.2.0", "boltons"),
    "sortedcontainers": ("sortedcontainers==2.4.0", "sortedcontainers"),
    "diskcache": ("diskcache==5.6.3", "diskcache"),
    "cachetools": ("cachetools==8.0.3", "cachetools"),
    "dogpile.cache": ("dogpile.cache==1.5.0", "dogpile"),
    "beaker": ("beaker==1.14.1", "beaker"),
    "pymemcache": ("pymemcache==4.0.0", "pymemcache"),
    "croniter": ("croniter==7.0.0", "croniter"),
    "humanize": ("humanize==4.17.0", "humanize"),
    "emoji": ("emoji==2.16.0", "emoji"),
    "ply": ("ply==3.11", "ply"),
    "sly": ("sly==0.5", "sly"),
    "parsimonious": ("parsimonious==0.11.0", "parsimonious"),
    "arpeggio": ("arpeggio==2.0.3", "arpeggio"),
    "tatsu": ("tatsu==5.15.1", "tatsu"),
    "antlr4-python3-runtime": ("antlr4-python3-runtime==4.13.2", "antlr4"),
    "pystache": ("pystache==0.6.8", "pystache"),
    "chevron": ("chevron==0.14.0", "chevron"),
    "cssselect": ("cssselect==1.6.0", "cssselect"),
    "pyquery": ("pyquery==2.1.0", "pyquery"),
    "parsel": ("parsel==1.12.1", "parsel"),
    "mechanicalsoup": ("mechanicalsoup==1.4.0", "mechanicalsoup"),
    "treq": ("treq==26.7.0", "treq"),
    "httplib2": ("httplib2==0.32.1", "httplib2"),
    "websocket-client": ("websocket-client==1.9.2", "websocket"),
    "python-socketio": ("python-socketio==5.18.1", "socketio"),
    "masonite": ("masonite==4.20.4", "masonite"),
    "connexion": ("connexion==3.3.0", "connexion"),
    "flask-restx": ("flask-restx==1.3.2", "flask_restx"),
    "flask-smorest": ("flask-smorest==0.47.0", "flask_smorest"),
    "apispec": ("apispec==6.10.1", "apispec"),
    "python-jose": ("python-jose==3.5.0", "jose"),
    "itsdangerous": ("itsdangerous==2.2.0", "itsdangerous"),
    "argh": ("argh==0.31.3", "argh"),
    "clize": ("clize==5.0.2", "clize"),
    "tabulate": ("tabulate==0.10.0", "tabulate"),
    "prettytable": ("prettytable==3.19.0", "prettytable"),
    "cclib": ("cclib==1.8.1", "cclib"),
    "netgraph": ("netgraph==4.13.2", "netgraph"),
    "windpowerlib": ("windpowerlib==0.2.2", "windpowerlib"),
    "diffrax": ("diffrax==0.7.2", "diffrax"),
    "pygmsh": ("pygmsh==7.1.17", "pygmsh"),
    "corner": ("corner==2.3.0", "corner"),
    # set BM (session 46): 43 releases named before any run; testinfra 6.0.0 (an empty redirect to pytest-testinfra) dropped, nothing to analyse: 42 run, measured on the analyzer after set BL's rules
    "hvac": ("hvac==2.4.0", "hvac"),
    "pykafka": ("pykafka==2.8.0", "pykafka"),
    "thrift": ("thrift==0.25.0", "thrift"),
    "suds-community": ("suds-community==1.2.0", "suds"),
    "spyne": ("spyne==2.14.0", "spyne"),
    "pysaml2": ("pysaml2==7.5.5", "saml2"),
    "python3-saml": ("python3-saml==1.16.0", "onelogin"),
    "signxml": ("signxml==5.2.0", "signxml"),
    "pyopenssl": ("pyopenssl==26.4.0", "OpenSSL"),
    "pycryptodome": ("pycryptodome==4.5.0", "Crypto"),
    "ecdsa": ("ecdsa==0.19.2", "ecdsa"),
    "rsa": ("rsa==4.9.1", "rsa"),
    "pyasn1-modules": ("pyasn1-modules==0.4.2", "pyasn1_modules"),
    "asn1crypto": ("asn1crypto==1.5.1", "asn1crypto"),
    "zeroconf": ("zeroconf==0.154.0", "zeroconf"),
    "pyroute2": ("pyroute2==0.9.7", "pyroute2"),
    "python-nmap": ("python-nmap==0.7.1", "nmap"),
    "netaddr": ("netaddr==1.3.0", "netaddr"),
    "green": ("green==4.0.2", "green"),
    "model-bakery": ("model-bakery==1.24.2", "model_bakery"),
    "time-machine": ("time-machine==3.6.0", "time_machine"),
    "maya": ("maya==0.6.1", "maya"),
    "rich-click": ("rich-click==1.9.9", "rich_click"),
    "python-dotenv": ("python-dotenv==1.2.4", "dotenv"),
    "everett": ("everett==3.5.0", "everett"),
    "environs": ("environs==15.2.0", "environs"),
    "more-itertools": ("more-itertools==11.2.1", "more_itertools"),
    "bidict": ("bidict==0.24.1", "bidict"),
    "yarl": ("yarl==1.25.1", "yarl"),
    "pytz": ("pytz==2026.6", "pytz"),
    "tzlocal": ("tzlocal==5.4.5", "tzlocal"),
    "python-slugify": ("python-slugify==9.2.0", "slugify"),
    "unidecode": ("unidecode==1.4.0", "unidecode"),
    "ptyprocess": ("ptyprocess==0.7.0", "ptyprocess"),
    "molecule": ("molecule==26.10.0", "molecule"),
    "podman": ("podman==5.8.0", "podman"),
    "openshift": ("openshift==0.13.2", "openshift"),
    "boto3": ("boto3==1.44.18", "boto3"),
    "s3transfer": ("s3transfer==0.19.3", "s3transfer"),
    "google-cloud-storage": ("google-cloud-storage==3.17.2", "google"),
    "minio": ("minio==7.2.20", "minio"),
    "adlfs": ("adlfs==2026.8.0", "adlfs"),
    # set BN (session 47): 60 releases named before any run; owlready2 0.51 (an sdist without its package folder where fetch looks) dropped: 59 run, measured on the analyzer as of 439e167
    "python-miio": ("python-miio==0.5.12", "miio"),
    "pyatv": ("pyatv==0.18.0", "pyatv"),
    "aioesphomeapi": ("aioesphomeapi==46.23.0", "aioesphomeapi"),
    "irc": ("irc==20.5.0", "irc"),
    "helium": ("helium==7.0.4", "helium"),
    "papermill": ("papermill==2.7.0", "papermill"),
    "web3": ("web3==8.0.0", "web3"),
    "eth-account": ("eth-account==0.14.0", "eth_account"),
    "bitcoinlib": ("bitcoinlib==0.7.10", "bitcoinlib"),
    "python-bitcoinlib": ("python-bitcoinlib==0.12.2", "bitcoin"),
    "svgwrite": ("svgwrite==1.4.3", "svgwrite"),
    "drawsvg": ("drawsvg==2.4.2", "drawsvg"),
    "cairosvg": ("cairosvg==2.9.1", "cairosvg"),
    "audiomentations": ("audiomentations==0.43.1", "audiomentations"),
    "pyserial-asyncio": ("pyserial-asyncio==0.6", "serial_asyncio"),
    "pyvisa-py": ("pyvisa-py==0.8.1", "pyvisa_py"),
    "pygatt": ("pygatt==5.0.0", "pygatt"),
    "cantools": ("cantools==45.1.0", "cantools"),
    "canmatrix": ("canmatrix==1.3.3", "canmatrix"),
    "opcua": ("opcua==0.98.13", "opcua"),
    "pylogix": ("pylogix==1.1.6", "pylogix"),
    "zipline-reloaded": ("zipline-reloaded==3.2.1", "zipline"),
    "ffn": ("ffn==1.4.1", "ffn"),
    "pyfolio-reloaded": ("pyfolio-reloaded==0.10.1", "pyfolio"),
    "empyrical-reloaded": ("empyrical-reloaded==0.7.1", "empyrical"),
    "pyproj": ("pyproj==3.7.2", "pyproj"),
    "imapclient": ("imapclient==4.1.0", "imapclient"),
    "exchangelib": ("exchangelib==5.6.0", "exchangelib"),
    "xlrd": ("xlrd==2.0.2", "xlrd"),
    "wand": ("wand==0.7.2", "wand"),
    "construct": ("construct==2.10.70", "construct"),
    "requests_ntlm": ("requests_ntlm==1.3.0", "requests_ntlm"),
    "defusedxml": ("defusedxml==0.7.1", "defusedxml"),
    "absl-py": ("absl-py==2.5.1", "absl"),
    "gekko": ("gekko==1.3.3", "gekko"),
    "iminuit": ("iminuit==2.33.0", "iminuit"),
    "mplhep": ("mplhep==1.3.3", "mplhep"),
    "particle": ("particle==1.1.0", "particle"),
    "vector": ("vector==1.9.0", "vector"),
    "parmed": ("parmed==4.3.1", "parmed"),
    "dgllife": ("dgllife==0.3.2", "dgllife"),
    "circuits": ("circuits==3.2.5", "circuits"),
    "pypubsub": ("pypubsub==4.0.7", "pubsub"),
    "pydispatcher": ("pydispatcher==2.0.7", "pydispatch"),
    "wtforms": ("wtforms==3.3.2", "wtforms"),
    "deform": ("deform==3.0.1", "deform"),
    "fastjsonschema": ("fastjsonschema==2.22.3", "fastjsonschema"),
    "pykwalify": ("pykwalify==1.8.0", "pykwalify"),
    "yamale": ("yamale==6.1.0", "yamale"),
    "strictyaml": ("strictyaml==1.7.3", "strictyaml"),
    "pyyaml": ("pyyaml==6.0.4", "yaml"),
    "tyro": ("tyro==1.0.17", "tyro"),
    "cyclopts": ("cyclopts==5.5.2", "cyclopts"),
    "keyring": ("keyring==25.7.0", "keyring"),
    "secretstorage": ("secretstorage==3.5.0", "secretstorage"),
    "pyotp": ("pyotp==2.12.1", "pyotp"),
    "qrcode": ("qrcode==8.2", "qrcode"),
    "python-barcode": ("python-barcode==0.16.1", "barcode"),
    "segno": ("segno==1.6.6", "segno"),
}
DEFAULT = ("deepspeed", "diffusers", "ray", "transformers", "vllm")
# lightning==2.6.6 (266 files) was tried too: 1 error group in all, too few to sample.
RESULTS = ROOT / "bench" / "results"
LABELS = RESULTS / "analyzer-precision-labels.json.xz"  # xz (a sixth smaller than gzip): the repository size budget
CACHE = Path.home() / ".cache" / "patchkit-bench" / "precision"
LABEL_KINDS = ("real", "latent", "fp")


def fetch(name: str, cache: Path = CACHE) -> Path:
    """The unpacked release of codebase NAME (only .py files and *.dist-info); fetched once."""
    req, pkg = CODEBASES[name]
    return fetch_release(req, cache, keep={pkg}) / pkg


def group_errors(findings):
    """{(class, attribute, code): [finding, ...]} for the error-severity findings, duplicates dropped."""
    groups = defaultdict(list)
    seen = set()
    for f in findings:
        if f.get("severity") != "error" or f.get("code") == "PK900":
            continue
        key = (f.get("class") or "?", f.get("attribute") or "?", f["code"])
        loc = (f["path"], f["line"], key)
        if loc in seen:
            continue
        seen.add(loc)
        groups[key].append(f)
    return dict(groups)


def sample_groups(groups, n, seed):
    keys = sorted(groups)
    return random.Random(seed).sample(keys, min(n, len(keys)))


def group_id(key) -> str:
    cls, attr, code = key
    return f"{cls}.{attr}:{code}"


def _excerpt(path: Path, line: int, before=4, after=4) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "(unreadable)"
    lo, hi = max(1, line - before), min(len(lines), line + after)
    return "\n".join(f"{'>' if i == line else ' '}{i:5d}  {lines[i - 1]}" for i in range(lo, hi + 1))


def find_init(root: Path, cls: str, hint: Path):
    """(path, line) of `cls.__init__` (or of the class line when it has none): the read's file first."""
    files = [hint] + [p for p in root.rglob("*.py") if p != hint]
    for p in files:
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if f"class {cls}" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == cls:
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__init__":
                        return p, item.lineno
                return p, node.lineno
    return None, 0


def load_labels():
    import lzma
    return json.loads(lzma.decompress(LABELS.read_bytes())) if LABELS.exists() else {}


def save_labels(labels: dict) -> None:
    """Write ``labels`` as the committed file: sorted keys, one level of indentation, xz at its
    strongest preset (deterministic bytes for the same labels)."""
    import lzma
    raw = (json.dumps(labels, indent=1, sort_keys=True) + "\n").encode()
    LABELS.write_bytes(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME))


def tally(sampled_ids, labels):
    t = {k: 0 for k in LABEL_KINDS}
    t["unlabelled"] = 0
    fam = defaultdict(int)
    for gid in sampled_ids:
        lab = labels.get(gid)
        if not lab or lab.get("label") not in LABEL_KINDS:
            t["unlabelled"] += 1
            continue
        t[lab["label"]] += 1
        if lab["label"] == "fp":
            fam[lab.get("family", "?")] += 1
    labelled = t["real"] + t["latent"] + t["fp"]
    t["labelled"] = labelled
    t["precision"] = round((t["real"] + t["latent"]) / labelled, 3) if labelled else None
    t["fp_families"] = dict(sorted(fam.items(), key=lambda kv: -kv[1]))
    return t


def write_sheet(name, req, commit, seed, root, findings, groups, sampled, labels, out: Path):
    base = root.parent
    rows = [f"# Precision sheet: {req} (patchkit {commit}, seed {seed})", "",
            f"{len(findings)} findings, {sum(len(v) for v in groups.values())} errors in {len(groups)} groups "
            f"(class + attribute + code); {len(sampled)} groups sampled.", "",
            "Labels: real (reachable bug) / latent (bug on a path no caller takes today) / fp (+ family).",
            "They live in analyzer-precision-labels.json.xz; this sheet is regenerated from it.", "",
            "| # | group | first error | n | label | family | reason |", "|---|---|---|---|---|---|---|"]
    body = []
    for i, key in enumerate(sampled, 1):
        gid = group_id(key)
        f = groups[key][0]
        lab = labels.get(gid, {})
        rows.append(f"| {i} | `{gid}` | `{f['path']}:{f['line']}` | {len(groups[key])} | "
                    f"{lab.get('label', 'unlabelled')} | {lab.get('family', '')} | {lab.get('reason', '')} |")
        read_path = base / f["path"] if not Path(f["path"]).is_absolute() else Path(f["path"])
        ipath, iline = find_init(root, key[0], read_path)
        body += [f"## {i}. `{gid}`", "", f"{f['message']}  ", f"why: {f.get('why', '')}", "",
                 f"read at `{f['path']}:{f['line']}`:", "```", _excerpt(read_path, f["line"]), "```"]
        if ipath:
            body += [f"`{key[0]}` init at `{ipath.relative_to(base)}:{iline}`:", "```",
                     _excerpt(ipath, iline, 1, 14), "```"]
        body.append("")
    out.write_text("\n".join(rows + [""] + body) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--sample", type=int, default=25)
    ap.add_argument("--patchkit-path", default=str(ROOT), help="checkout put first on PYTHONPATH")
    ap.add_argument("--codebase", action="append", choices=sorted(CODEBASES), help=f"default: {', '.join(DEFAULT)}")
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--site", type=Path, help="third-party sources (e.g. torch .py/.pyi) the analyzer may read")
    ap.add_argument("--suffix", default="", help="results file suffix, e.g. -with-torch")
    args = ap.parse_args(argv)
    commit = patchkit_commit(args.patchkit_path)
    labels = load_labels()
    summary = {"patchkit_path": args.patchkit_path, "commit": commit, "seed": args.seed,
               "site": str(args.site) if args.site else None,
               "sample": args.sample, "codebases": {}}
    for name in args.codebase or DEFAULT:
        root = fetch(name, args.cache)
        # re-labelling a run needs no re-analysis; the key hashes the analyzer's source, so an
        # uncommitted change is measured, not the last commit's cached findings
        saved = args.cache / f"findings-{name}-{analyzer_key(args.patchkit_path)}{'-site' if args.site else ''}.json"
        if saved.is_file() and commit != "unknown":
            findings = json.loads(saved.read_text())
        else:
            findings = run_patchkit(root.name, args.patchkit_path, ("--fail-on", "error", "--no-cache"),
                                    cwd=root.parent, site=args.site)
            saved.write_text(json.dumps(findings))
        groups = group_errors(findings)
        sampled = sample_groups(groups, args.sample, args.seed)
        cl = labels.get(name, {})
        write_sheet(name, CODEBASES[name][0], commit, args.seed, root, findings, groups, sampled, cl,
                    RESULTS / f"analyzer-precision-{name}{args.suffix}.md")
        t = tally([group_id(k) for k in sampled], cl)
        n_files = sum(1 for _ in root.rglob("*.py"))
        summary["codebases"][name] = {"release": CODEBASES[name][0], "files": n_files,
                                      "errors": sum(len(v) for v in groups.values()), "groups": len(groups),
                                      "sampled": [group_id(k) for k in sampled], **t}
        print(f"{name:13s} {n_files:5d} files  {summary['codebases'][name]['errors']:5d} errors in "
              f"{len(groups):4d} groups  sampled {len(sampled)}  real {t['real']} latent {t['latent']} "
              f"fp {t['fp']} unlabelled {t['unlabelled']}  precision {t['precision']}")
    cbs = summary["codebases"].values()
    tot = {k: sum(c[k] for c in cbs) for k in ("real", "latent", "fp", "unlabelled", "labelled", "errors", "groups")}
    tot["precision"] = round((tot["real"] + tot["latent"]) / tot["labelled"], 3) if tot["labelled"] else None
    fam = defaultdict(int)
    for c in cbs:
        for k, v in c["fp_families"].items():
            fam[k] += v
    tot["fp_families"] = dict(sorted(fam.items(), key=lambda kv: -kv[1]))
    summary["total"] = tot
    import gzip  # gzipped: the repository size budget (the .md beside it is the readable form)
    (RESULTS / f"analyzer-precision{args.suffix}.json.gz").write_bytes(
        gzip.compress((json.dumps(summary, indent=1) + "\n").encode(), mtime=0))
    md = [f"# Analyzer precision on untuned codebases (patchkit {commit}, seed {args.seed}, "
          f"{args.sample} groups each)", "",
          (f"Third-party sources readable by the analyzer: {args.site} (e.g. torch's .py/.pyi)."
           if args.site else "No third-party packages installed: torch, gymnasium etc. bases are unresolved."), "",
          "| codebase | files | errors | groups | sampled | real | latent | fp | precision |",
          "|---|---|---|---|---|---|---|---|---|"]
    for name, c in summary["codebases"].items():
        md.append(f"| {c['release']} | {c['files']} | {c['errors']} | {c['groups']} | {len(c['sampled'])} | "
                  f"{c['real']} | {c['latent']} | {c['fp']} | {c['precision']} |")
    md.append(f"| **total** | | {tot['errors']} | {tot['groups']} | | {tot['real']} | {tot['latent']} | "
              f"{tot['fp']} | **{tot['precision']}** |")
    md += ["", "False-positive families (count in the labelled sample):", ""]
    md += [f"- {k}: {v}" for k, v in tot["fp_families"].items()]
    (RESULTS / f"analyzer-precision{args.suffix}.md").write_text("\n".join(md) + "\n")
    print(f"total: precision {tot['precision']} ({tot['real']} real + {tot['latent']} latent / {tot['labelled']} labelled)")


if __name__ == "__main__":
    main()
