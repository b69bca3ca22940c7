#!/bin/sh
echo "app=$1 flavour=$2"
